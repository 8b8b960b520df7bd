#!/bin/sh
# bench-gemm.sh - what recording GEMM shapes adds to one cuBLAS call
# (docs/performance.md): bench-gemm untraced, traced with the gemm kind off
# (the interposers only forward) and traced (stamp, external correlation
# push/pop, descriptor reads for cuBLASLt, one queue entry), each over the
# fake libcublas/libcublasLt and the fake CUDA stack. Then what reached the
# trace: records and losses.
#
# usage: sh tests/bench/bench-gemm.sh [BUILD] [ROUNDS]
B=${1:-build}
R=${2:-100}
B=$(cd "$B" && pwd)
BENCH=$B/bench-gemm
LIB=$B/libgpuprof-inject.so
FAKE=$B/fakecuda
[ -x "$BENCH" ] && [ -f "$LIB" ] || { echo "bench-gemm.sh: build the library and bench-gemm first"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LIBS="$FAKE:$FAKE/cublas"

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # run NAME [VAR=VALUE...]
	name=$1
	shift
	echo "$name:"
	env LD_LIBRARY_PATH="$LIBS" "$@" "$BENCH" "$R" | sed 's/^/  /' || exit 1
}
run untraced
run "traced, GPUPROF_KINDS=all,-gemm" LD_PRELOAD="$LIB" CUDA_INJECTION64_PATH="$LIB" \
	GPUPROF_OUTPUT="$tmp/off.gpz" GPUPROF_KINDS=all,-gemm
run traced LD_PRELOAD="$LIB" CUDA_INJECTION64_PATH="$LIB" GPUPROF_OUTPUT="$tmp/on.gpz"
if [ -x "$B/gpuprof" ]; then
	echo "traced: $("$B/gpuprof" dump --kind nvtx "$tmp/on.gpz" | grep -c 'domain="cpu_op"') GEMM records;" \
		"losses: $("$B/gpuprof" info "$tmp/on.gpz" | sed -n 's/^  losses *//p')"
fi
