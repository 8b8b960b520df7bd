#!/bin/sh
# bench-threads.sh - reading on 1 and 2 threads (docs/performance.md,
# "Threads"): the floor (read: inflate and decode every chunk, no model), the
# model load, and `gpuprof report` as a whole process, on the 10 M-event
# generated trace (tracegen --steps 1000 --kernels 2500 --devices 2).
#
# usage: tests/bench/bench-threads.sh GPUPROF TRACEGEN BENCH_LOAD [REPS]
#
# Best of REPS runs (default 3) each: wall time, CPU time (user + system, all
# threads) and, for report, the peak resident set (/usr/bin/time); the load
# average is printed with them, since on a shared machine wall time says
# little without it. The trace is kept in $TMPDIR (default /tmp) for the
# next run.
set -u
GPUPROF=${1:?usage: bench-threads.sh GPUPROF TRACEGEN BENCH_LOAD [REPS]}
TRACEGEN=${2:?usage: bench-threads.sh GPUPROF TRACEGEN BENCH_LOAD [REPS]}
BENCH_LOAD=${3:?usage: bench-threads.sh GPUPROF TRACEGEN BENCH_LOAD [REPS]}
REPS=${4:-3}
. "$(dirname "$0")/trace-10m.sh"
echo "bench-threads: $trace, $(wc -c <"$trace") bytes; load average $(cut -d' ' -f1-3 /proc/loadavg)"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for t in 1 2; do
	"$BENCH_LOAD" read "$trace" "$t" "$REPS" || exit 1
	"$BENCH_LOAD" load "$trace" "$t" "$REPS" || exit 1
	best=""
	for r in $(seq 1 "$REPS"); do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp" "$GPUPROF" report --threads "$t" "$trace" \
			>/dev/null || exit 1
		line=$(tail -n 1 "$tmp")
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" \
			'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'; then
			best=$line
		fi
	done
	echo "$best" | awk -v t="$t" -v n="$REPS" '{ printf "report %s thread%s: best of %d %.2f s wall, %.2f s cpu, %d MiB peak\n", t, t == 1 ? "" : "s", n, $1, $2 + $3, $4 / 1024 }'
done
echo "bench-threads: load average $(cut -d' ' -f1-3 /proc/loadavg)"
