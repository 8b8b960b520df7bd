#!/bin/sh
# bench-comm.sh - `gpuprof comm` on multi-rank traces of about a million
# events (docs/comm.md, docs/performance.md).
#
# usage: tests/bench/bench-comm.sh GPUPROF TRACEGEN [REPS]
#
# Writes two generated 8-rank jobs with a planted straggler (rank 5):
#   (a) 500 steps with 121 more short kernels a step: 1.0 M events, 4,000
#       AllReduces with their kernels and external-correlation links;
#   (b) 16,000 steps: 1.02 M events, 128,000 NCCL operations;
#   (c) as (b) without NCCL records (--nccl-names): 128,000 communication
#       kernels known by name, matched across ranks by order per stream.
# then runs the whole command (`gpuprof comm --format json`, output to
# /dev/null) REPS times (default 3) on each and prints the wall times, the
# median CPU time (user + system) and the largest peak resident set
# (/usr/bin/time), with the load average.
set -u
GPUPROF=${1:?usage: bench-comm.sh GPUPROF TRACEGEN [REPS]}
TRACEGEN=${2:?usage: bench-comm.sh GPUPROF TRACEGEN [REPS]}
REPS=${3:-3}
[ -x /usr/bin/time ] || { echo "bench-comm: skipped (no /usr/bin/time)"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$TRACEGEN" --nccl --ranks 8 --straggler 5 --steps 500 --nccl-fill 121 -o "$dir/a%r.gpz" \
	>"$dir/gen-a" || exit 1
"$TRACEGEN" --nccl --ranks 8 --straggler 5 --steps 16000 -o "$dir/b%r.gpz" >"$dir/gen-b" || exit 1
"$TRACEGEN" --nccl-names --ranks 8 --straggler 5 --steps 16000 -o "$dir/c%r.gpz" >"$dir/gen-c" ||
	exit 1
echo "bench-comm: load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for set in a b c; do
	events=$(sed -n 's/.*: \([0-9]*\) events$/\1/p' "$dir/gen-$set" | awk '{s += $1} END {print s}')
	walls="" cpus="" peak=0
	for r in $(seq 1 "$REPS"); do
		# shellcheck disable=SC2046
		/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$GPUPROF" comm --format json \
			$(ls "$dir/$set"*.gpz) >/dev/null || { echo "bench-comm: comm failed" >&2; exit 1; }
		read -r t u s m <<EOT
$(tail -n 1 "$dir/time")
EOT
		walls="$walls $t"
		cpus="$cpus $(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')"
		[ "$m" -gt "$peak" ] && peak=$m
	done
	cmed=$(printf '%s\n' $cpus | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	echo "comm ($set) 8 ranks, $events events: wall$walls s; CPU median $cmed s;" \
		"peak RSS $((peak / 1024)) MiB"
done
echo "bench-comm: load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
