#!/bin/sh
# demo.sh - the main job on a generated trace: write a simulated training
# run with the seeded generator and show what gpuprof reads from it.
set -eu
O=${1:-build}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-demo-XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "Generating a simulated training run (no GPU involved: the trace generator plays one)."
"$O/tracegen" --seed 42 --steps 20 --kernels 300 --copies 6 --streams 3 --devices 2 \
	--gap-ns 2000000 --all-kinds -o "$dir/demo.gpz" >/dev/null
echo
"$O/gpuprof" info "$dir/demo.gpz" | sed "s#$dir/##"
echo
echo "First records (gpuprof dump):"
"$O/gpuprof" dump --kind kernel,nvtx "$dir/demo.gpz" | sed -n '1,6p' | cut -c1-160
