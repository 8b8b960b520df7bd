#!/bin/sh
# bench-memory.sh - `gpuprof memory` on ten million allocator events, and the
# recorder's cost per allocation (docs/memory.md, docs/performance.md).
#
# usage: tests/bench/bench-memory.sh BUILD_DIR [REPS] [EVENTS_PER_STEP]
#
# (1) tracegen writes 10 steps of 20 kernels with EVENTS_PER_STEP (default
#     1,000,000) PyTorch-like allocator events each, with totals; the whole
#     command `gpuprof memory --format json` (output to /dev/null) runs REPS
#     times (3): wall time, CPU time (user + system) and peak resident set
#     (/usr/bin/time), and the same for `gpuprof info` (reading the file
#     alone) to show the part the analysis adds.
# (2) The fake CUDA stack plays 200,000 cudaMalloc + cudaFree pairs under the
#     injected library twice, with MEMORY2 recorded and with
#     GPUPROF_KINDS=-memory; (time with - time without) / 400,000 events is
#     the recording cost per allocation or release: the fake CUPTI building
#     the record, the conversion, encoding and compression.
set -u
B=${1:?usage: bench-memory.sh BUILD_DIR [REPS] [EVENTS_PER_STEP]}
REPS=${2:-3}
PER=${3:-1000000}
[ -x /usr/bin/time ] || { echo "bench-memory: skipped (no /usr/bin/time)"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$B/tracegen" --steps 10 --kernels 20 --memory "$PER" -o "$dir/m.gpz" >"$dir/gen" || exit 1
echo "bench-memory: $(cat "$dir/gen"); $(du -k "$dir/m.gpz" | cut -f1) KiB"
echo "bench-memory: load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for cmd in memory info; do
	for r in $(seq 1 "$REPS"); do
		if [ $cmd = memory ]; then
			/usr/bin/time -f "%e %U %S %M" -o "$dir/t" "$B/gpuprof" memory --format json \
				"$dir/m.gpz" >/dev/null || exit 1
		else
			/usr/bin/time -f "%e %U %S %M" -o "$dir/t" "$B/gpuprof" info "$dir/m.gpz" \
				>/dev/null || exit 1
		fi
		read -r wall user sys rss <"$dir/t"
		echo "bench-memory: gpuprof $cmd run $r: wall ${wall} s, cpu $(echo "$user + $sys" | bc) s, peak RSS $((rss / 1024)) MiB"
	done
done
echo "bench-memory: load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"

LIB=$B/libgpuprof-inject.so
if [ ! -f "$LIB" ] || [ ! -x "$B/tests/fakecuda-run" ]; then
	echo "bench-memory: recorder part skipped (no injection library or fake CUDA stack)"
	exit 0
fi
N=200000
printf 'devices 1\ninit\ncontext 1 0\nrepeat %s\nmalloc 0 1 4096\nfree\nend\n' "$N" >"$dir/s.txt"
run() {
	env LD_LIBRARY_PATH="$B/fakecuda" CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" \
		GPUPROF_OUTPUT="$dir/r.gpz" "$@" "$B/tests/fakecuda-run" "$dir/s.txt" >/dev/null 2>&1
}
for r in $(seq 1 "$REPS"); do
	t0=$(date +%s%N); run env || exit 1; t1=$(date +%s%N)
	run env GPUPROF_KINDS=-memory || exit 1; t2=$(date +%s%N)
	with=$((t1 - t0)) without=$((t2 - t1))
	echo "bench-memory: recorder run $r: with MEMORY2 $((with / 1000000)) ms, without $((without / 1000000)) ms, $(((with - without) / (2 * N))) ns per allocation or release"
done
echo "bench-memory: load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
