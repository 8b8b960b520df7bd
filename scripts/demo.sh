#!/bin/sh
# demo.sh - the main job: record a simulated training loop through the real
# injection library and the fake CUDA stack (no GPU: a fake driver and CUPTI
# play an H100 running a multi-stream step with NVTX steps, host syncs and a
# slow data loader), then show gpuprof info and gpuprof report on the trace.
# Without the CUDA toolkit (no injection library built) a generated trace
# stands in for the recording.
set -eu
O=$(cd "${1:-build}" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-demo-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
if [ -x "$O/tests/demo-train" ] && [ -f "$O/fakecuda/libcupti.so.13" ] &&
	[ -f "$O/libgpuprof-inject.so" ]; then
	echo "Recording a simulated training loop: the GPU, its driver and CUPTI are simulated."
	LD_LIBRARY_PATH="$O/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$O/gpuprof" record -o run -- "$O/tests/demo-train" 20 2>&1
	trace=run
else
	echo "No injection library built (CUDA toolkit missing): a generated trace plays the run."
	"$O/tracegen" --seed 42 --steps 8 --kernels 150 --copies 4 --streams 3 --devices 2 \
		--gap-ns 4000000 --sync-wake-ns 60000 --item-sync -o demo.gpz >/dev/null
	trace=demo.gpz
fi
echo
if [ -d "$trace" ]; then
	"$O/gpuprof" info "$trace"/*.gpz
else
	"$O/gpuprof" info "$trace"
fi
echo
"$O/gpuprof" report "$trace"
