#!/bin/sh
# A program that uses NVTX but never CUDA gets a trace of its ranges, with
# the reason there is no GPU activity; without any driver it runs normally.
. "$TOP/tests/fakecuda/e2e-lib.sh"

cat >nvtx-only.txt <<'SCEN'
push outer
repeat 10
push inner
mark here
pop
end
pop
print done
SCEN
env NVTX_INJECTION64_PATH="$LIB" GPUPROF_OUTPUT="$PWD/n.gpz" "$RUN" nvtx-only.txt >out.txt 2>err.txt ||
	fail "exit $?"
[ "$(cat out.txt)" = done ] || fail "stdout: $(cat out.txt)"
[ -s err.txt ] && fail "stderr: $(cat err.txt)"
"$CHECK" nvtx n.gpz >/dev/null || fail "nesting"
[ "$(stat_val n.gpz 'nvtx inner')" = 10 ] || fail "inner ranges"
[ "$(stat_val n.gpz 'nvtx here')" = 10 ] || fail "marks"
stat_val n.gpz status | grep -q 'CUDA never initialized' || fail "status: $(stat_val n.gpz status)"
exit 0
