#!/bin/sh
# bench-backtrace.sh - the fake program's launch rate with and without call
# stacks (docs/backtrace.md): bt-prog-fp makes N launches from a chain of
# known functions (about 12 frames deep) through the fake CUDA stack; it is
# run traced, and traced with --backtrace by frame pointers and by
# libunwind. Best of 5 runs each of the CPU time the process used (user +
# system, all its threads: the writer's work on the extra records counts),
# which a busy machine disturbs less than wall time; launches per CPU second
# and the cost per launch over the traced run.
#
# usage: sh tests/bench/bench-backtrace.sh [BUILD] [N]
B=${1:-build}
N=${2:-200000}
B=$(cd "$B" && pwd)
PROG=$B/tests/bt-prog-fp
LIB=$B/libgpuprof-inject.so
[ -x "$PROG" ] && [ -f "$LIB" ] || { echo "bench-backtrace.sh: build the fake stack first"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x /usr/bin/time ] || { echo "bench-backtrace.sh: needs /usr/bin/time"; exit 0; }

# best_ns MODE: the least CPU time (user + system) of 5 runs, in ns
best_ns() {
	best=
	for i in 1 2 3 4 5; do
		case $1 in
		traced) set -- traced ;;
		*) set -- "$1" GPUPROF_BACKTRACE=16 GPUPROF_BACKTRACE_METHOD="$1" ;;
		esac
		mode=$1
		shift
		/usr/bin/time -f "%U %S" -o "$tmp/time" env LD_LIBRARY_PATH="$B/fakecuda" \
			CUDA_INJECTION64_PATH="$LIB" GPUPROF_OUTPUT="$tmp/t.gpz" "$@" \
			"$PROG" "$N" >/dev/null
		t=$(awk '{ printf "%.0f", ($1 + $2) * 1e9 }' "$tmp/time")
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
		set -- "$mode"
	done
	echo "$best"
}

echo "bench-backtrace.sh: $N launches of bt-prog-fp (fake CUDA), least CPU time of 5 runs"
base=
for mode in traced fp unwind; do
	ns=$(best_ns $mode)
	rate=$(awk -v n="$N" -v t="$ns" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
	if [ "$mode" = traced ]; then
		base=$ns
	fi
	extra=
	if [ -n "$base" ] && [ "$mode" != traced ]; then
		extra=$(awk -v n="$N" -v t="$ns" -v b="$base" \
			'BEGIN { printf "  (+%.0f ns per launch over traced)", (t - b) / n }')
	fi
	label=$mode
	[ "$mode" = fp ] && label="--backtrace=16, frame pointers"
	[ "$mode" = unwind ] && label="--backtrace=16, libunwind"
	printf "  %-32s %10s launches per CPU second%s\n" "$label" "$rate" "$extra"
done
# what was recorded in the last run
if [ -x "$B/gpuprof" ]; then
	"$B/gpuprof" info "$tmp/t.gpz" | sed -n 's/^  \(records\|losses\) */  last trace: \1 /p'
fi
