#!/bin/sh
# bench-inputs.sh - two builds, interleaved, on the Kineto and nsys anchors.
#
# usage: sh tests/bench/bench-inputs.sh BEFORE AFTER [RUNS]
#
# BEFORE and AFTER are two gpuprof binaries. Each input below is given to
# `report --format json` (output to /dev/null) RUNS times (default 7) with
# each binary in turn, so a machine whose speed drifts slows both alike:
#   kineto-1   the largest Kineto anchor, --threads 1 (import, model, report)
#   kineto-6   the six largest Kineto anchors, --threads 2 (conversion ahead)
#   nsys-1     the largest nsys anchor, --threads 1
#   nsys-all   every nsys anchor, --threads 2
# Printed per input and binary: the median wall time, the median CPU time
# (user + system, all threads) and the median peak resident set (KiB), with
# the load average before and after: on a shared machine, read the CPU time.
# The anchors are ../shared/anchors beside the checkout ("skipped" without).
set -u
before=${1:?usage: bench-inputs.sh BEFORE AFTER [RUNS]}
after=${2:?usage: bench-inputs.sh BEFORE AFTER [RUNS]}
runs=${3:-7}
top=$(cd "$(dirname "$0")/../.." && pwd)
A=${GPUPROF_ANCHORS:-$top/../shared/anchors}
if [ ! -d "$A/kineto" ] || [ ! -d "$A/nsys" ]; then
	echo "bench-inputs: skipped (no $A)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-inputs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
largest() { # DIR PATTERN N: the N largest files
	find "$1" -name "$2" -type f | xargs ls -S | head -"$3" | tr '\n' ' '
}
med() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
k1=$(largest "$A/kineto" '*.json*' 1)
k6=$(largest "$A/kineto" '*.json*' 6)
n1=$(largest "$A/nsys" '*.sqlite' 1)
nall=$(largest "$A/nsys" '*.sqlite' 100)
echo "bench-inputs: load before: $(cut -d' ' -f1-3 /proc/loadavg), $runs rounds"
for spec in "kineto-1:1:$k1" "kineto-6:2:$k6" "nsys-1:1:$n1" "nsys-all:2:$nall"; do
	name=${spec%%:*}
	rest=${spec#*:}
	th=${rest%%:*}
	files=${rest#*:}
	: >"$tmp/before"
	: >"$tmp/after"
	for i in $(seq "$runs"); do
		for w in before after; do
			eval g=\$$w
			# shellcheck disable=SC2086 # the file list is split on purpose
			/usr/bin/time -f "%e %U %S %M" -o "$tmp/one" "$g" report --threads "$th" \
				--format json $files >/dev/null 2>&1
			cat "$tmp/one" >>"$tmp/$w"
		done
	done
	for w in before after; do
		wall=$(awk '{print $1}' "$tmp/$w" | med)
		cpu=$(awk '{print $2 + $3}' "$tmp/$w" | med)
		rss=$(awk '{print $4}' "$tmp/$w" | med)
		echo "$name (threads $th) $w: wall ${wall} s, CPU ${cpu} s, peak RSS ${rss} KiB"
	done
done
echo "bench-inputs: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
