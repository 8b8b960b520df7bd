#!/bin/sh
# bench-nccl.sh - what gpuprof adds to one NCCL collective (docs/comm.md):
# the profiler plugin's callbacks for one AllReduce with two channels, and
# interposition: ncclAllReduce through the fake libnccl.so.2 with and
# without the library preloaded (best of 5 rounds each, ns per call).
#
# usage: sh tests/bench/bench-nccl.sh [BUILD] [N]
B=${1:-build}
N=${2:-200000}
B=$(cd "$B" && pwd)
BENCH=$B/bench-nccl
LIB=$B/libgpuprof-inject.so
NCCL=$B/fakecuda/nccl
[ -x "$BENCH" ] && [ -f "$LIB" ] || { echo "bench-nccl.sh: build the library and bench-nccl first"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

GPUPROF_OUTPUT="$tmp/plugin.gpz" "$BENCH" plugin "$LIB" "$N" || exit 1
plain=$(env LD_LIBRARY_PATH="$NCCL" "$BENCH" app "$N") || exit 1
traced=$(env LD_LIBRARY_PATH="$NCCL" LD_PRELOAD="$LIB" GPUPROF_OUTPUT="$tmp/app.gpz" \
	"$BENCH" app "$N") || exit 1
echo "nccl interposition: ncclAllReduce $plain ns untraced, $traced ns traced:" \
	"+$(echo "$traced $plain" | awk '{printf "%.0f", $1 - $2}') ns per call"
# what reached the traces (the bench pauses 2 ms per 1024 calls for the writer)
if [ -x "$B/gpuprof" ]; then
	for t in plugin app; do
		echo "$t trace: $("$B/gpuprof" info "$tmp/$t.gpz" | sed -n 's/^  records *//p; s/^  losses *//p' | tr '\n' ' ')"
	done
fi
