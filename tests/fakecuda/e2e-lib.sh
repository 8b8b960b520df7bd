# e2e-lib.sh - sourced by the recording tests (tests/e2e/t1*.sh).
#
# Sets B (the build folder), LIB (the injection library), FAKE (the fake
# driver and CUPTI), RUN (fakecuda-run), CHECK (check-trace), LIFE, NVTXT,
# and exits 77 (skip) when the CUDA parts were not built. inject CMD runs
# CMD with the library injected by hand, as `gpuprof record` would.
B=$TOP/$O
LIB=$B/libgpuprof-inject.so
FAKE=$B/fakecuda
RUN=$B/tests/fakecuda-run
CHECK=$B/tests/check-trace
LIFE=$B/tests/life
NVTXT=$B/tests/nvtx-threads
SCEN=$TOP/tests/fakecuda/scenarios
if [ ! -f "$LIB" ] || [ ! -x "$RUN" ] || [ ! -f "$FAKE/libcupti.so.13" ]; then
	echo "libgpuprof-inject.so or the fake CUDA stack not built: skipped"
	exit 77
fi
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH LD_PRELOAD GPUPROF_OUTPUT GPUPROF_KINDS \
	GPUPROF_CAPTURE GPUPROF_FLUSH_MS GPUPROF_BUFFER_MB GPUPROF_FORK GPUPROF_MANIFEST \
	GPUPROF_DEBUG GPUPROF_QUIET GPUPROF_CUPTI_PATH GPUPROF_EXEC_CHAIN FAKECUPTI_FAIL FAKECUPTI_HOLDER \
	FAKECUPTI_LOG FAKECUPTI_SHUFFLE FAKECUDA_DEVICES FAKECUDA_INIT_TWICE

inject() {
	env LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" "$@"
}

# The fake driver on the library path, nothing injected.
plain() {
	env LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}

fail() {
	echo "FAIL: $*"
	exit 1
}

# stat_val TRACE KEY: the value check-trace stat prints for KEY ("records kernel").
stat_val() {
	"$CHECK" stat "$1" | sed -n "s/^$2 //p" | head -n 1
}
