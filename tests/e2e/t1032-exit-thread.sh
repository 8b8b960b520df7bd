#!/bin/sh
# exit() from a second thread while the main thread keeps working: the
# trace is finished cleanly and the exit status is the program's.
. "$TOP/tests/fakecuda/e2e-lib.sh"

inject env GPUPROF_OUTPUT="$PWD/e.gpz" "$LIFE" exit-thread 3 >out.txt 2>err.txt
rc=$?
[ $rc = 3 ] || fail "exit status $rc"
# The main thread launches on while exit runs: CUPTI may not hand its last
# buffer back by the deadline. Counted in the trace, and said in one line.
if [ -s err.txt ]; then
	b=$(stat_val e.gpz 'loss deadline')
	grep -qx "gpuprof: warning: $PWD/e.gpz: ${b:-?} CUPTI buffers\{0,1\} of records not handed back by the exit deadline; the trace counts them" \
		err.txt || fail "stderr: $(cat err.txt)"
fi
[ "$(stat_val e.gpz footer)" = yes ] || fail "no footer"
n=$(stat_val e.gpz 'kernel main_loop')
[ "${n:-0}" -gt 5 ] || fail "only ${n:-0} kernels"
"$CHECK" nvtx e.gpz >/dev/null || fail "nesting"
exit 0
