#!/bin/sh
# demo.sh - the main job on a generated trace: a simulated training run
# (two GPUs, three streams, a slow data loader, a loss.item() host sync per
# step) summarized by gpuprof info and gpuprof report.
set -eu
O=${1:-build}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-demo-XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "Simulated training run: no GPU involved, the trace generator plays two."
"$O/tracegen" --seed 42 --steps 8 --kernels 150 --copies 4 --streams 3 --devices 2 \
	--gap-ns 4000000 --sync-wake-ns 60000 --item-sync -o "$dir/demo.gpz" >/dev/null
echo
"$O/gpuprof" info "$dir/demo.gpz" | sed "s#$dir/##"
echo
"$O/gpuprof" report "$dir/demo.gpz" | sed "s#$dir/##"
