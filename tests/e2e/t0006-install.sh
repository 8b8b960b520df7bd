#!/bin/sh
# make install puts a working command, the libraries with their headers, the
# manual page and the format spec under PREFIX; a program builds against them.
. "$TOP/tests/e2e/lib.sh"

make -s -C "$TOP" install PREFIX="$PWD/inst" O="$O" >make.out 2>&1 || { cat make.out; fail "make install"; }
for f in bin/gpuprof lib/libgptrace.a lib/libgpbase.a share/man/man1/gpuprof.1 \
	share/doc/gpuprof/FORMAT.md include/gpuprof/trace/trace.h; do
	[ -f "inst/$f" ] || fail "missing $f"
done
inst/bin/gpuprof --version | grep -q '^gpuprof ' || fail "installed command does not run"
cat >prog.c <<'C'
#include "trace/trace.h"
#include <stdio.h>
int main(void)
{
	struct gpt_writer *w;
	struct gpt_kernel k = {.start = 5, .end = 9};
	if (gpt_writer_open("x.gpz", NULL, &w) || gpt_writer_add(w, GPT_KIND_KERNEL, &k) ||
	    gpt_writer_close(w)) {
		return 1;
	}
	puts("written");
	return 0;
}
C
# TEST_LDFLAGS: the sanitizer runtime when the suite runs under make check.
cc -std=gnu11 -Iinst/include/gpuprof prog.c inst/lib/libgptrace.a inst/lib/libgpbase.a \
	${TEST_LDFLAGS:-} $(pkg-config --libs zlib libdeflate) -o prog ||
	fail "cannot build against the installed library"
./prog | grep -q written || fail "program failed"
inst/bin/gpuprof dump --json x.gpz | grep -q '"kind":"kernel","start":5,"end":9' || fail "record not read back"
exit 0
