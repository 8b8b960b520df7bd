#!/bin/sh
# bench-memory.sh - `gpuprof memory` on ten million allocator events, and the
# recorder's cost per allocation (docs/memory.md, docs/performance.md).
#
# usage: tests/bench/bench-memory.sh BUILD_DIR [REPS] [EVENTS_PER_STEP]
#
# (1) tracegen writes 10 steps of 20 kernels with EVENTS_PER_STEP (default
#     1,000,000) PyTorch-like allocator events each, with totals; the whole
#     command `gpuprof memory --format json` (output to /dev/null) runs REPS
#     times (5): the median, lowest and highest CPU time (user + system),
#     wall time and peak resident set (/usr/bin/time), and the same for
#     `gpuprof info` (reading the file alone) to show the part the model
#     and the analysis add.
# (2) The recorder's cost per allocation or release, in process:
#     bench-inject-memory puts CUPTI MEMORY2 records through the real buffer
#     pool, conversion, encoding, compression and file (what the injected
#     library does per record; CUPTI's own part is not ours to measure
#     without a GPU): CPU and wall ns per record, median of 9 runs.
# (3) The same end to end, as a check: the fake CUDA stack plays 200,000
#     cudaMalloc + cudaFree pairs under the injected library, with MEMORY2
#     and with GPUPROF_KINDS=-memory, alternating, REPS pairs; the median of
#     the per-pair differences of CPU time / 400,000 events (this one also
#     counts the fake CUPTI building the records).
set -u
B=${1:?usage: bench-memory.sh BUILD_DIR [REPS] [EVENTS_PER_STEP]}
REPS=${2:-5}
PER=${3:-1000000}
[ -x /usr/bin/time ] || { echo "bench-memory: skipped (no /usr/bin/time)"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$B/tracegen" --steps 10 --kernels 20 --memory "$PER" -o "$dir/m.gpz" >"$dir/gen" || exit 1
echo "bench-memory: $(cat "$dir/gen"); $(du -k "$dir/m.gpz" | cut -f1) KiB"
echo "bench-memory: load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
# median lowest highest of the numbers on stdin
stats() { sort -n | awk '{v[NR] = $1} END {printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR]}'; }
for cmd in memory info; do
	: >"$dir/cpu"; : >"$dir/wall"; : >"$dir/rss"
	for r in $(seq 1 "$REPS"); do
		if [ $cmd = memory ]; then
			/usr/bin/time -f "%e %U %S %M" -o "$dir/t" "$B/gpuprof" memory --format json \
				"$dir/m.gpz" >/dev/null || exit 1
		else
			/usr/bin/time -f "%e %U %S %M" -o "$dir/t" "$B/gpuprof" info "$dir/m.gpz" \
				>/dev/null || exit 1
		fi
		read -r wall user sys rss <"$dir/t"
		echo "$user + $sys" | bc >>"$dir/cpu"
		echo "$wall" >>"$dir/wall"
		echo $((rss / 1024)) >>"$dir/rss"
	done
	echo "bench-memory: gpuprof $cmd, $REPS runs: cpu $(stats <"$dir/cpu") s, wall $(stats <"$dir/wall") s, peak RSS $(stats <"$dir/rss") MiB"
done
echo "bench-memory: load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"

if [ -x "$B/bench-inject-memory" ]; then
	"$B/bench-inject-memory" 4000000 9 | sed 's/^  /bench-memory: recorder in process: /; /^bench-inject/d' || exit 1
else
	echo "bench-memory: in-process recorder part skipped (no bench-inject-memory: CUDA headers?)"
fi
LIB=$B/libgpuprof-inject.so
if [ ! -f "$LIB" ] || [ ! -x "$B/tests/fakecuda-run" ]; then
	echo "bench-memory: recorder part skipped (no injection library or fake CUDA stack)"
	exit 0
fi
N=200000
printf 'devices 1\ninit\ncontext 1 0\nrepeat %s\nmalloc 0 1 4096\nfree\nend\n' "$N" >"$dir/s.txt"
# CPU seconds (user + system) of one recorded run
run() {
	rm -f "$dir"/r*.gpz
	env LD_LIBRARY_PATH="$B/fakecuda" CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" \
		GPUPROF_OUTPUT="$dir/r.gpz" "$@" /usr/bin/time -f "%U %S" -o "$dir/t" \
		"$B/tests/fakecuda-run" "$dir/s.txt" >/dev/null 2>&1 || return 1
	read -r user sys <"$dir/t"
	echo "$user + $sys" | bc
}
: >"$dir/diff"
for r in $(seq 1 "$REPS"); do
	with=$(run env) || exit 1
	without=$(run env GPUPROF_KINDS=-memory) || exit 1
	echo "($with - $without) * 1000000000 / (2 * $N)" | bc >>"$dir/diff"
done
echo "bench-memory: recorder end to end, $REPS pairs: $(stats <"$dir/diff") ns of CPU per allocation or release (median of the per-pair differences, lowest-highest)"
echo "bench-memory: load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
