#!/bin/sh
# bench-diff.sh - `gpuprof diff` of 10 runs per side of one-million-event
# traces (docs/diff.md, docs/performance.md).
#
# usage: tests/bench/bench-diff.sh GPUPROF TRACEGEN [REPS]
#
# Writes 20 generated traces (10 steps of 50,000 kernel launches with their
# launch calls, copies, NVTX ranges and a host sync: about 1.0 million
# events each; candidates with --slowdown 1.05) to a temporary folder, then
# runs `gpuprof diff --json` over them REPS times (default 3) and prints the
# median wall time, the median CPU time (user + system, all threads) and the
# largest peak resident set (/usr/bin/time), and the load average, since
# wall time on a shared machine says little without it. Target: under 5 s.
# BENCH_DIFF_THREADS="1 2" repeats it with --threads 1, then 2 (default: no
# --threads, one per core).
set -u
GPUPROF=${1:?usage: bench-diff.sh GPUPROF TRACEGEN [REPS]}
TRACEGEN=${2:?usage: bench-diff.sh GPUPROF TRACEGEN [REPS]}
REPS=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

base="" cand=""
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$TRACEGEN" --seed "$i" --steps 10 --kernels 50000 --same-kernels --step-jitter 0.02 \
		--run-jitter 0.005 -o "$dir/a$i.gpz" >"$dir/gen" || exit 1
	"$TRACEGEN" --seed "$((i + 100))" --steps 10 --kernels 50000 --same-kernels \
		--step-jitter 0.02 --run-jitter 0.005 --slowdown 1.05 -o "$dir/b$i.gpz" >/dev/null ||
		exit 1
	base="$base $dir/a$i.gpz"
	cand="$cand $dir/b$i.gpz"
done
events=$(sed -n 's/.*: \([0-9]*\) events$/\1/p' "$dir/gen")
for th in ${BENCH_DIFF_THREADS:-default}; do
	topt=""
	[ "$th" = default ] || topt="--threads $th"
	times=""
	cpus=""
	peak=0
	for r in $(seq 1 "$REPS"); do
		# shellcheck disable=SC2086
		/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$GPUPROF" diff $topt --json "$dir/out.json" -q \
			$base -- $cand
		rc=$?
		[ "$rc" -eq 3 ] || { echo "bench-diff: diff exited $rc, expected 3" >&2; exit 1; }
		read -r t u s m <<EOT
$(tail -n 1 "$dir/time")
EOT
		times="$times $t"
		cpus="$cpus $(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')"
		[ "$m" -gt "$peak" ] && peak=$m
	done
	med=$(printf '%s\n' $times | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	cmed=$(printf '%s\n' $cpus | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	verdict=$(python3 -c 'import json; d=json.load(open("'"$dir/out.json"'")); m=[x for x in d["metrics"] if x["name"]=="step.wall"][0]; print("%s %+.2f%% [%+.2f%%, %+.2f%%]" % (m["verdict"], 100*m["change"], 100*m["ci"][0], 100*m["ci"][1]))')
	[ -n "${BENCH_DIFF_KEEP:-}" ] && cp -r "$dir" "$BENCH_DIFF_KEEP"
	echo "diff 10 vs 10 runs of $events events, threads $th: wall median $med s (of$times), CPU median $cmed s" \
		"(of$cpus); peak RSS $((peak / 1024)) MiB; step.wall $verdict;" \
		"load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null);" \
		"target < 5 s wall: $(awk -v t="$med" 'BEGIN {print (t < 5) ? "PASS" : "MISS"}')"
done
