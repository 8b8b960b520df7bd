#!/bin/sh
# bench-mpi.sh - the job report of 64 generated ranks, in one process and
# under mpirun with 1, 2 and 4 MPI processes (docs/cluster.md,
# docs/performance.md).
#
# usage: tests/bench/bench-mpi.sh GPUPROF TRACEGEN [REPS] [STEPS] [FILL]
#
# Writes one job of 64 ranks (tracegen --nccl, a straggler and a slow GPU;
# STEPS steps, default 1000, each with FILL more short kernels, default 121:
# 250,000 events a rank, 16 M in all), then runs `report --job` and
# `mpirun -n N report --mpi` (output JSON to a file, the same bytes each
# time) REPS times each (default 3), the settings interleaved so that each
# meets the same load. Prints per setting the wall times and their median,
# the ratio of the -n 2 and -n 1 medians, each MPI process's peak resident set and CPU time (user +
# system; /usr/bin/time around every process), the time each process spent
# in MPI start-up, its share, the gather, rank 0's merge and output and MPI
# finish at -n 1 and 2, and the bytes of summaries each process sent, per rank;
# with the load average before and after (the machine may be shared).
set -u
GPUPROF=${1:?usage: bench-mpi.sh GPUPROF TRACEGEN [REPS] [STEPS] [FILL]}
TRACEGEN=${2:?usage: bench-mpi.sh GPUPROF TRACEGEN [REPS] [STEPS] [FILL]}
REPS=${3:-3}
STEPS=${4:-1000}
FILL=${5:-121}
[ -x /usr/bin/time ] || { echo "bench-mpi: skipped (no /usr/bin/time)"; exit 0; }
command -v mpirun >/dev/null 2>&1 || { echo "bench-mpi: skipped (no mpirun)"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpi() {
	mpirun --oversubscribe --allow-run-as-root -n "$@"
}

mkdir "$dir/t"
"$TRACEGEN" --nccl --ranks 64 --steps "$STEPS" --nccl-fill "$FILL" --straggler 17 \
	--nccl-late 1000000 --slow-rank 42 --slowdown 1.25 -o "$dir/t/r%r.gpz" >"$dir/gen" || exit 1
events=$(sed -n 's/.*: \([0-9]*\) events$/\1/p' "$dir/gen" | awk '{s += $1} END {print s}')
echo "bench-mpi: 64 ranks, $STEPS steps, $events events, $(du -sk "$dir/t" | cut -f1) KiB of traces"
echo "bench-mpi: load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
GPUPROF_LOG=debug "$GPUPROF" report --job --format json -o "$dir/ref.json" "$dir/t" 2>"$dir/log"
sed -n 's/.*\[cli\/job\] \([0-9]*\) traces, \([0-9]*\) bytes.*/\1 \2/p' "$dir/log" |
	awk '{printf "bench-mpi: summaries: %d bytes for %d ranks, %.0f bytes a rank\n", $2, $1, $2 / $1}'

median() {
	tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
# one run of setting n (0: --job, no MPI), its wall time appended to walls_n
run_one() {
	n=$1
	rm -f "$dir"/rss.$n.* "$dir/out.json"
	start=$(date +%s.%N)
	if [ "$n" = 0 ]; then
		/usr/bin/time -f '%M %U %S' -o "$dir/rss.0.0" "$GPUPROF" report --job --format json \
			-o "$dir/out.json" "$dir/t" || exit 1
	else
		mpi "$n" sh -c '/usr/bin/time -f "%M %U %S" -o "$1.$OMPI_COMM_WORLD_RANK" "$2" report \
			--mpi --format json -o "$3" "$4"' sh "$dir/rss.$n" "$GPUPROF" \
			"$dir/out.json" "$dir/t" || exit 1
	fi
	end=$(date +%s.%N)
	cmp -s "$dir/out.json" "$dir/ref.json" || { echo "bench-mpi: answers differ" >&2; exit 1; }
	echo " $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')" >>"$dir/walls.$n"
}
# the settings interleaved, so that every one meets the same load
for r in $(seq 1 "$REPS"); do
	for n in 0 1 2 4; do
		run_one "$n"
	done
done
for n in 0 1 2 4; do
	walls=$(tr -d '\n' <"$dir/walls.$n")
	rss=$(for f in "$dir"/rss.$n.*; do tail -n 1 "$f"; done | awk '{printf "%s%d", (NR > 1 ? " " : ""), $1 / 1024}')
	cpu=$(for f in "$dir"/rss.$n.*; do tail -n 1 "$f"; done | awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $2 + $3}')
	label=$([ "$n" = 0 ] && echo "report --job (no MPI)" || echo "mpirun -n $n report --mpi")
	echo "bench-mpi: $label: wall$walls s, median $(echo "$walls" | median) s;" \
		"peak RSS per process: $rss MiB; CPU per process (last run): $cpu s"
done
m1=$(tr -d '\n' <"$dir/walls.1" | median)
m2=$(tr -d '\n' <"$dir/walls.2" | median)
awk -v a="$m1" -v b="$m2" 'BEGIN {printf "bench-mpi: -n 2 / -n 1 (medians): %.3fx (target 0.75x)\n", b / a}'
# where the wall time of one run goes, per process (cli/job.c's debug line)
for n in 1 2; do
	GPUPROF_LOG=debug mpi "$n" "$GPUPROF" report --mpi --format json -o "$dir/out.json" "$dir/t" \
		2>&1 | sed -n 's/.*\[cli\/job\] process \([0-9]*\): ms in /\1: /p' | sort -n |
		sed "s/^/bench-mpi: -n $n phases (ms), process /"
done
GPUPROF_LOG=debug mpi 4 "$GPUPROF" report --mpi --format json -o "$dir/out.json" "$dir/t" \
	2>&1 | sed -n 's/.*\[cli\/mpi\] process \([0-9]*\) sent \([0-9]*\) bytes.*/\1 \2/p' | sort -n |
	awk '{printf "%s%d: %d B", (NR > 1 ? ", " : "bench-mpi: -n 4, bytes sent by process "), $1, $2}
	     END {print ""}'
echo "bench-mpi: load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
