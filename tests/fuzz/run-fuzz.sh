#!/bin/sh
# run-fuzz.sh - run the libFuzzer reader target for a bounded time (make fuzz).
#
# usage: tests/fuzz/run-fuzz.sh FUZZ_BIN TRACEGEN SECONDS
#
# Builds a seed corpus from tracegen outputs (small traces with every kind,
# uncompressed, tiny chunks, no footer, several devices and streams, plus
# truncated and bit-flipped copies), then fuzzes for SECONDS. The working
# corpus, seeds, log and any crashing input live in tests/fuzz/corpus-run/
# (git-ignored); the corpus is kept between runs so later runs start from
# what earlier ones found. The last line is
#   fuzz: N executions, C crashes in S s
# and the exit status is non-zero when the target crashed (or leaked, ran
# out of memory or timed out); the input that did it is kept in
# tests/fuzz/corpus-run/crashes/.
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 FUZZ_BIN TRACEGEN SECONDS" >&2
	exit 2
fi
bin=$1
gen=$2
secs=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/tests/fuzz/corpus-run
seeds=$work/seeds
corpus=$work/corpus
crashes=$work/crashes
log=$work/fuzz.log

case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac

rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$crashes" || exit 1

# seed NAME TRACEGEN-OPTIONS...
seed() {
	name=$1
	shift
	if ! "$gen" "$@" -o "$seeds/$name.gpz" >/dev/null; then
		echo "run-fuzz: tracegen $* failed" >&2
		exit 1
	fi
}

seed small --steps 1 --kernels 4 --copies 1
seed default --steps 2 --kernels 10
seed all-kinds --steps 2 --kernels 6 --all-kinds
seed all-kinds-l0 --steps 2 --kernels 6 --all-kinds --level 0
seed level0 --steps 1 --kernels 8 --level 0
seed level9 --steps 3 --kernels 8 --level 9
seed chunk3 --steps 2 --kernels 5 --chunk-records 3
seed chunk1-l0 --steps 1 --kernels 3 --copies 1 --chunk-records 1 --level 0
seed chunk7-all --steps 3 --kernels 6 --all-kinds --chunk-records 7
seed no-close --steps 2 --kernels 6 --no-close
seed devices --steps 2 --kernels 4 --devices 2 --streams 3 --nvtx-depth 3 --seed 7
seed flat --steps 4 --kernels 6 --nvtx-depth 0 --gap-ns 1000000 --seed 3
seed medium --steps 20 --kernels 50 --all-kinds --seed 5
# Format 2.0: packed files (one chunk), a compact file streamed past its
# packing limit (scaled columns, index, trailer), and a stored packed file.
seed packed --steps 2 --kernels 6 --all-kinds --compact 0
seed packed-l0 --steps 1 --kernels 4 --copies 1 --level 0 --compact 0
seed packed-l9 --steps 3 --kernels 8 --level 9 --chunk-records 7 --compact 0
seed compact-streamed --steps 2 --kernels 6 --all-kinds --chunk-records 16 --compact 2048

# Truncated and bit-flipped variants of a few seeds.
for s in small all-kinds level0 chunk3 packed packed-l0 compact-streamed; do
	f=$seeds/$s.gpz
	size=$(wc -c < "$f")
	for cut in 20 31 32 60 80 $((size / 3)) $((size / 2)) $((size - 30)) $((size - 1)); do
		[ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$f" > "$seeds/$s-cut$cut.gpz"
	done
	for off in 9 33 40 45 80 100 $((size / 2)) $((size - 10)); do
		[ "$off" -lt "$size" ] || continue
		cp "$f" "$seeds/$s-flip$off.gpz"
		printf '\377' | dd of="$seeds/$s-flip$off.gpz" bs=1 seek="$off" conv=notrunc \
			2>/dev/null
	done
done

. "$top/tests/fuzz/lib.sh"
fuzz_run fuzz "$bin" "$secs" "$top/tests/fuzz/gpz.dict" "$crashes" "$log" "$corpus" "$seeds"
