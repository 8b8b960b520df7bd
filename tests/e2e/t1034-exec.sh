#!/bin/sh
# exec of another CUDA program is traced into a new file (same pid: the
# name gets .exec1); the first image's trace keeps what it flushed.
. "$TOP/tests/fakecuda/e2e-lib.sh"

inject env GPUPROF_FLUSH_MS=50 LIFE_EXEC_DELAY_MS=300 GPUPROF_OUTPUT="$PWD/x-%p.gpz" \
	"$LIFE" exec >out.txt 2>err.txt || fail "exit $?"
[ -s err.txt ] && fail "stderr: $(cat err.txt)"
grep -q 'exec child done' out.txt || fail "no exec"
set -- x-*.exec1.gpz
[ -f "$1" ] || fail "no file for the exec'ed image: $(ls)"
[ "$(stat_val "$1" 'kernel after_exec')" = 5 ] || fail "exec'ed image's kernels"
[ "$(stat_val "$1" footer)" = yes ] || fail "exec'ed image's trace not finished"
first=$(ls x-*.gpz | grep -v exec1)
[ "$(stat_val "$first" 'kernel before_exec')" = 5 ] || fail "first image's kernels"
[ -z "$(stat_val "$first" 'kernel after_exec')" ] || fail "second image's work in the first file"
exit 0
