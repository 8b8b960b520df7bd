#!/bin/sh
# Fail open: no CUPTI, the real CUPTI refusing without a driver, another
# profiler holding CUPTI, CUPTI not initialized, and an error from every
# CUPTI call the setup makes. Each time the program's output and exit
# status are unchanged, stderr gets at most one gpuprof line, and the trace
# (NVTX still recorded) says why.
. "$TOP/tests/fakecuda/e2e-lib.sh"

plain "$LIFE" output >ref.out 2>ref.err
ref=$?

try() { # name expect-line(yes|no|any) status-pattern env...
	name=$1 line=$2 pat=$3
	shift 3
	inject env "$@" GPUPROF_OUTPUT="$PWD/$name.gpz" "$LIFE" output >"$name.out" 2>"$name.err"
	rc=$?
	[ $rc = $ref ] || fail "$name: exit status $rc, not $ref"
	cmp -s ref.out "$name.out" || fail "$name: stdout differs"
	n=$(grep -c '^gpuprof' "$name.err")
	[ "$n" -le 1 ] || fail "$name: $n gpuprof lines on stderr"
	case $line in
	yes) [ "$n" = 1 ] || fail "$name: no warning" ;;
	no) [ "$n" = 0 ] || fail "$name: a warning: $(cat "$name.err")" ;;
	esac
	grep -v '^gpuprof' "$name.err" | cmp -s ref.err - || fail "$name: stderr differs"
	"$CHECK" stat "$name.gpz" >"$name.stat" || fail "$name: no readable trace"
	grep -q '^records nvtx 20$' "$name.stat" || fail "$name: NVTX not recorded"
	grep -q "^status .*$pat" "$name.stat" || fail "$name: status: $(grep ^status "$name.stat")"
}

try nocupti yes 'cannot load libcupti' GPUPROF_CUPTI_PATH=/nonexistent/libcupti.so.13
if [ -f "${CUDA_HOME:-/usr/local/cuda}/lib64/libcupti.so.13" ]; then
	try realcupti yes 'CUPTI off' GPUPROF_CUPTI_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64/libcupti.so.13"
fi
try holder yes 'in use by nsys' FAKECUPTI_HOLDER=nsys
try notinit yes 'NOT_INITIALIZED' FAKECUPTI_FAIL=cuptiSubscribe:15

# every CUPTI call made during setup, failing in turn
inject env FAKECUPTI_LOG="$PWD/calls.txt" GPUPROF_OUTPUT="$PWD/log.gpz" "$LIFE" output >/dev/null 2>&1
sort -u calls.txt >setup-calls.txt
[ "$(wc -l <setup-calls.txt)" -ge 10 ] || fail "only $(wc -l <setup-calls.txt) CUPTI calls seen"
while read -r call; do
	try "fail-$call" any "$call\|CUPTI" FAKECUPTI_FAIL="$call"
done <setup-calls.txt
exit 0
