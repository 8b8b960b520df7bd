#!/bin/sh
# libgpuprof-inject.so exports only its entry points (CUDA and NVTX
# injection, the NCCL profiler plugin tables, the NCCL and cuBLAS GEMM interposers) and needs no CUDA
# library, C++ runtime or CUPTI at load time (STYLE.md section 8.7).
. "$TOP/tests/fakecuda/e2e-lib.sh"
command -v nm >/dev/null || exit 77

syms=$(nm -D --defined-only "$LIB" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort | tr '\n' ' ')
want="InitializeInjection InitializeInjectionNvtx2 cublasGemmEx cublasGemmStridedBatchedEx \
cublasHgemm cublasLtMatmul cublasSgemm_v2 ncclAllGather ncclAllReduce ncclAlltoAll \
ncclBcast ncclBroadcast ncclCommAbort ncclCommCount ncclCommCuDevice ncclCommDestroy \
ncclCommGetAsyncError \
ncclCommInitAll ncclCommInitRank ncclCommInitRankConfig ncclCommInitRankScalable ncclCommSplit \
ncclCommUserRank ncclGather ncclGroupEnd ncclGroupStart ncclProfiler_v4 ncclProfiler_v5 \
ncclProfiler_v6 ncclRecv ncclReduce ncclReduceScatter ncclScatter ncclSend "
[ "$syms" = "$want" ] || fail "exported symbols: $syms"
# the plugin tables are data, the interposers code; nothing needs libnccl
nm -D --defined-only "$LIB" | grep -q ' [DR] ncclProfiler_v5$' || fail "ncclProfiler_v5 is not data"
nm -D --defined-only "$LIB" | grep -q ' T ncclAllReduce$' || fail "ncclAllReduce is not code"
needed=$(readelf -d "$LIB" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
case $needed in
*cupti* | *libcuda* | *stdc++* | *cudart* | *nccl*) fail "needs $needed" ;;
esac
# never unloaded: NVTX dlcloses an injection that declines
readelf -d "$LIB" | grep -q 'NODELETE' || fail "not linked with -z nodelete"
# the fake libcupti carries the real library's version node
nm -D "$FAKE/libcupti.so.13" | grep -q 'cuptiSubscribe@@libcupti.so.13' ||
	fail "fake libcupti lacks the libcupti.so.13 version node"
exit 0
