#!/bin/sh
# bench-pftrace.sh - `gpuprof export --perfetto` of a two-million-event
# trace in both formats (docs/export.md, "Size and speed").
#
# usage: tests/bench/bench-pftrace.sh GPUPROF TRACEGEN [REPS]
#
# Generates `tracegen --steps 500 --kernels 1000 --devices 2` (about 2.0
# million events), then exports it REPS times (default 3) as JSON and as a
# .pftrace and prints, per format, the file size, the median wall time, the
# median CPU time (user + system) and the largest peak resident set
# (/usr/bin/time: load plus export), the size ratio, and the load average,
# since wall time on a shared machine says little without it.
set -u
GPUPROF=${1:?usage: bench-pftrace.sh GPUPROF TRACEGEN [REPS]}
TRACEGEN=${2:?usage: bench-pftrace.sh GPUPROF TRACEGEN [REPS]}
REPS=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$TRACEGEN" --seed 1 --steps 500 --kernels 1000 --devices 2 -o "$dir/t.gpz" >"$dir/gen" || exit 1
events=$(sed -n 's/.*: \([0-9]*\) events$/\1/p' "$dir/gen")
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for ext in json pftrace; do
	walls="" cpus="" peak=0
	for r in $(seq 1 "$REPS"); do
		rm -f "$dir/out.$ext"
		/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$GPUPROF" export --quiet \
			--perfetto "$dir/out.$ext" "$dir/t.gpz" || { echo "bench-pftrace: export failed" >&2; exit 1; }
		read -r wall user sys rss <"$dir/time"
		walls="$walls $wall"
		cpus="$cpus $(awk "BEGIN { print $user + $sys }")"
		[ "$rss" -gt "$peak" ] && peak=$rss
	done
	size=$(wc -c <"$dir/out.$ext")
	eval "size_$ext=$size"
	echo "bench-pftrace: $ext: $events events -> $size bytes; median wall $(echo "$walls" | median) s," \
		"median CPU $(echo "$cpus" | median) s, peak RSS $((peak / 1024)) MiB ($REPS runs)"
done
# shellcheck disable=SC2154
echo "bench-pftrace: .pftrace / JSON = $(awk "BEGIN { printf \"%.3f\", $size_pftrace / $size_json }")"
echo "bench-pftrace: load average $(cut -d' ' -f1-3 /proc/loadavg)"
