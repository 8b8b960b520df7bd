#!/bin/sh
# html-screenshot.sh - the screenshot in docs/html-report.md: the HTML report
# of a generated two-GPU training loop, rendered by headless Chromium.
#
# usage: scripts/html-screenshot.sh [BUILD_DIR] [OUT.png]   (defaults: build, docs/html-report.png)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
out=${2:-$top/docs/html-report.png}
command -v chromium >/dev/null 2>&1 || { echo "html-screenshot: chromium is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-shot-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
"$build/tracegen" --seed 3 --steps 8 --kernels 100 --devices 2 --gap-ns 200000 --item-sync \
	-o "$work/train.gpz" >/dev/null
"$build/gpuprof" report --format html -o "$work/report.html" "$work/train.gpz"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
	--hide-scrollbars --window-size=1400,1150 --screenshot="$work/shot.png" \
	"file://$work/report.html" >/dev/null 2>&1
cp "$work/shot.png" "$out"
echo "html-screenshot: wrote $out"
