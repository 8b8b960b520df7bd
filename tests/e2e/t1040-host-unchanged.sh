#!/bin/sh
# The traced program's stdout, stderr and exit status are byte-identical
# with and without the library (which prints nothing unless asked).
. "$TOP/tests/fakecuda/e2e-lib.sh"

check() { # name command...
	name=$1
	shift
	plain "$@" >"$name.out0" 2>"$name.err0"
	rc0=$?
	inject env GPUPROF_OUTPUT="$PWD/$name.gpz" "$@" >"$name.out1" 2>"$name.err1"
	rc1=$?
	[ $rc0 = $rc1 ] || fail "$name: exit status $rc0 untraced, $rc1 traced"
	cmp -s "$name.out0" "$name.out1" || fail "$name: stdout differs"
	cmp -s "$name.err0" "$name.err1" || fail "$name: stderr differs"
	[ -s "$name.gpz" ] || fail "$name: no trace"
}
check scenario "$RUN" "$SCEN/host.txt"
check life "$LIFE" output
check nvtx "$NVTXT" -t 4 -n 20
[ "$(head -n 1 scenario.out0)" = "first line" ] || fail "scenario output"
exit 0
