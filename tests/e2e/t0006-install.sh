#!/bin/sh
# make install puts a working command, the libraries with their headers, the
# manual page, the format spec and the user docs under PREFIX; a program builds against them.
. "$TOP/tests/e2e/lib.sh"

make -s -C "$TOP" install PREFIX="$PWD/inst" O="$O" >make.out 2>&1 || { cat make.out; fail "make install"; }
for f in bin/gpuprof lib/libgptrace.a lib/libgpbase.a share/man/man1/gpuprof.1 \
	share/doc/gpuprof/FORMAT.md share/doc/gpuprof/README.md share/doc/gpuprof/flame.md \
	share/doc/gpuprof/reliability.md share/doc/gpuprof/units.md include/gpuprof/trace/trace.h \
	share/bash-completion/completions/gpuprof share/zsh/site-functions/_gpuprof; do
	[ -f "inst/$f" ] || fail "missing $f"
done
inst/bin/gpuprof --version | grep -q '^gpuprof ' || fail "installed command does not run"
# Every user document in docs/ (not the developers' docs/dev/) is installed.
for d in "$TOP"/docs/*.md; do
	cmp -s "$d" "inst/share/doc/gpuprof/$(basename "$d")" || fail "docs/$(basename "$d") not installed"
done
grep -q '^\.SH ENVIRONMENT' inst/share/man/man1/gpuprof.1 || fail "manual page has no ENVIRONMENT"
# The completion scripts are the command's own (t0031 checks that they complete).
inst/bin/gpuprof completion bash | cmp -s - inst/share/bash-completion/completions/gpuprof ||
	fail "bash completion differs from 'gpuprof completion bash'"
bash -n inst/share/bash-completion/completions/gpuprof || fail "bash completion does not parse"
# tests/tools/install-prog.c, built against inst/ alone.
make -s -C "$TOP" install-prog PREFIX="$PWD/inst" O="$O" >make.out 2>&1 ||
	{ cat make.out; fail "cannot build against the installed library"; }
"$BUILD/tests/install-prog" | grep -q written || fail "program failed"
inst/bin/gpuprof dump --json x.gpz | grep -q '"kind":"kernel","start":5,"end":9' || fail "record not read back"
# libgpuprof.so (docs/api.md): a program built against the installed header and library reads
# the same trace back through it.
[ -f inst/include/gpuprof/gpuprof.h ] && [ -f inst/lib/libgpuprof.so.1 ] || fail "libgpuprof not installed"
cat >api-prog.c <<'C'
#include <gpuprof/gpuprof.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	struct gpuprof_trace *t;
	const struct gpuprof_table *k;
	if (gpuprof_api_version() != GPUPROF_API_VERSION ||
	    gpuprof_open((const char *const *)argv + 1, (size_t)argc - 1, NULL, &t)) {
		printf("error: %s\n", gpuprof_last_error());
		return 1;
	}
	if (gpuprof_table(t, "kernels", &k) == 0) {
		printf("kernels %zu\n", k->rows);
	}
	gpuprof_close(t);
	return 0;
}
C
${CC:-cc} -std=gnu11 -Iinst/include api-prog.c -Linst/lib -lgpuprof -Wl,-rpath,"$PWD/inst/lib" \
	$TEST_LDFLAGS -o api-prog || fail "cannot build against the installed libgpuprof"
[ "$(./api-prog x.gpz)" = "kernels 1" ] || fail "libgpuprof did not read the trace: $(./api-prog x.gpz)"
exit 0
