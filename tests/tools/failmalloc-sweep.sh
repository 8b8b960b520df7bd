#!/bin/sh
# failmalloc-sweep.sh [-m once|after] [-s STRIDE] [-f FIRST] [-t SECONDS] -- CMD ARGS...
#
# Runs CMD once to count its allocations (A), then once per N = FIRST,
# FIRST + STRIDE, ... <= A with the Nth allocation failing (tests/tools/
# failmalloc.c; -m after, the default: that one and every later one; -m
# once: that one alone). Each run must end in one of two ways:
#   ok   exit 0 (the failure was one the command does without) with the
#        same standard output as the run without a fault: nothing lost silently
#   oom  exit 1 with "out of memory" on stderr
# anything else (a signal, a timeout, another status, exit 1 with another
# message, a sanitizer report) is BAD, printed with its stderr. The last line
# is "failmalloc: CMD: A allocations, R runs, F faults injected, K ok, M oom,
# B bad"; the exit status is 1 when B > 0.
#
# FAILMALLOC_SO names the shim (default $BUILD/tests/libfailmalloc.so, BUILD
# default build). Under AddressSanitizer set FAILMALLOC_ASAN=1: the shim is
# preloaded before the sanitizer's runtime, and a leak report is BAD too.
# CMD runs in the current directory; its output must not vary from run to run.
set -u
mode=after stride=1 first=1 limit=20
while [ $# -gt 0 ]; do
	case $1 in
	-m) mode=$2; shift 2 ;;
	-s) stride=$2; shift 2 ;;
	-f) first=$2; shift 2 ;;
	-t) limit=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 [-m once|after] [-s STRIDE] [-f FIRST] [-t SECONDS] -- CMD..." >&2; exit 2 ;;
	esac
done
so=${FAILMALLOC_SO:-${BUILD:-build}/tests/libfailmalloc.so}
[ -f "$so" ] || { echo "failmalloc: no $so" >&2; exit 2; }
preload=$so
if [ "${FAILMALLOC_ASAN:-0}" = 1 ]; then
	asan=$(ldd "$1" | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
	preload="$so:$asan"
	export ASAN_OPTIONS="verify_asan_link_order=0:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
fi
tmp=${TMPDIR:-/tmp}/failmalloc.$$
trap 'rm -f "$tmp".*' EXIT

# try N: runs CMD with the Nth allocation failing (0: none); only CMD is preloaded.
try() {
	try_n=$1
	shift
	rm -f "$tmp.rep"
	timeout -k 5 "$limit" env FAILMALLOC_N="$try_n" FAILMALLOC_MODE="$mode" \
		FAILMALLOC_REPORT="$tmp.rep" LD_PRELOAD="$preload" "$@" >"$tmp.out" 2>"$tmp.err"
}
try 0 "$@"
rc=$?
cp "$tmp.out" "$tmp.want"
if [ "$rc" -ne 0 ]; then
	echo "failmalloc: $*: exit $rc without a fault:" >&2
	head -n 5 "$tmp.err" >&2
	exit 2
fi
allocs=$(sed -n 's/^allocs \([0-9]*\) .*/\1/p' "$tmp.rep")
runs=0 faults=0 ok=0 oom=0 bad=0
n=$first
while [ "$n" -le "$allocs" ]; do
	try "$n" "$@"
	rc=$?
	runs=$((runs + 1))
	f=$(sed -n 's/^allocs [0-9]* failed \([0-9]*\)/\1/p' "$tmp.rep" 2>/dev/null)
	faults=$((faults + ${f:-0}))
	if [ "$rc" -eq 0 ] && ! cmp -s "$tmp.out" "$tmp.want"; then
		bad=$((bad + 1))
		echo "BAD: N=$n exit 0 with another output: $*"
		diff "$tmp.want" "$tmp.out" | head -n 8 | sed 's/^/    /'
	elif [ "$rc" -eq 0 ] && ! grep -aq "Sanitizer" "$tmp.err"; then
		ok=$((ok + 1))
	elif [ "$rc" -eq 1 ] && grep -aq "out of memory" "$tmp.err" && ! grep -aq "Sanitizer" "$tmp.err"; then
		oom=$((oom + 1))
	else
		bad=$((bad + 1))
		echo "BAD: N=$n exit $rc: $*"
		grep -av '^ *$' "$tmp.err" | head -n 12 | sed 's/^/    /'
	fi
	n=$((n + stride))
done
echo "failmalloc: $*: $allocs allocations, $runs runs, $faults faults injected, $ok ok, $oom oom, $bad bad"
[ "$bad" -eq 0 ]
