#!/bin/sh
# bench-kineto.sh - Kineto JSON import speed and peak memory per anchor.
#
# usage: sh tests/bench/bench-kineto.sh BENCH_KINETO GPUPROF [RUNS]
#
# For every Kineto anchor (../shared/anchors/kineto/**/*.json[.gz] beside the
# checkout; "skipped" without them), largest first:
#   events   every element of traceEvents (flows and instants too)
#   import   BENCH_KINETO FILE RUNS: the importer alone, in one process, into
#            a writer on /dev/null; best wall time of RUNS and best user+sys
#            CPU time; ev/s = events / that time (the CPU rate is less
#            sensitive to other load on the machine)
#   convert  the whole `gpuprof convert FILE OUT.gpz` command (process start,
#            inflate, parse, encode, deflate, write): best wall of RUNS
#   peak     maximum resident set of one `gpuprof convert` (/usr/bin/time %M,
#            else getrusage in a python3 parent) and that per event
# The load average is printed before and after. Exits 1 if an import fails.
set -u
bench=${1:?usage: bench-kineto.sh BENCH_KINETO GPUPROF [RUNS]}
gpuprof=${2:?usage: bench-kineto.sh BENCH_KINETO GPUPROF [RUNS]}
runs=${3:-5}
top=$(cd "$(dirname "$0")/../.." && pwd)
anchors=$top/../shared/anchors/kineto
if [ ! -d "$anchors" ]; then
	echo "bench-kineto: skipped (no $anchors)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-kineto-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

peak_kib() { # command... -> max RSS in KiB of one run
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 || return 1
		tail -n 1 "$tmp/rss"
	else
		python3 -c 'import resource,subprocess,sys
r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) if r.returncode==0 else sys.exit(1)' "$@"
	fi
}

best_wall() { # runs command... -> best wall seconds
	python3 -c 'import subprocess,sys,time
n=int(sys.argv[1]); best=1e9
for _ in range(n):
    t=time.perf_counter()
    if subprocess.run(sys.argv[2:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL).returncode: sys.exit(1)
    best=min(best,time.perf_counter()-t)
print("%.4f"%best)' "$@"
}

echo "bench-kineto: load before: $(cat /proc/loadavg 2>/dev/null | cut -d' ' -f1-3), $(nproc) CPUs"
echo "| anchor | MB JSON | events | import wall s | import M ev/s (wall) | import M ev/s (CPU) | convert wall s | convert M ev/s | peak MiB | peak B/ev |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
failed=0
for f in $(find "$anchors" -name '*.json' -o -name '*.json.gz' | xargs ls -S); do
	name=${f#"$anchors"/}
	line=$("$bench" "$f" "$runs" 2>"$tmp/err") || { echo "FAIL $name: $(cat "$tmp/err")"; failed=1; continue; }
	ev=$(echo "$line" | sed 's/.* events=\([0-9]*\).*/\1/')
	wall=$(echo "$line" | sed 's/.* best_wall_s=\([0-9.]*\).*/\1/')
	cpu=$(echo "$line" | sed 's/.* best_cpu_s=\([0-9.]*\).*/\1/')
	case $f in
	*.gz) mb=$(gzip -dc "$f" | wc -c) ;;
	*) mb=$(wc -c <"$f") ;;
	esac
	cw=$(best_wall "$runs" "$gpuprof" convert --force "$f" "$tmp/o.gpz") || { echo "FAIL convert $name"; failed=1; continue; }
	pk=$(peak_kib "$gpuprof" convert --force "$f" "$tmp/o.gpz") || { echo "FAIL rss $name"; failed=1; continue; }
	awk -v n="$name" -v mb="$mb" -v ev="$ev" -v w="$wall" -v c="$cpu" -v cw="$cw" -v pk="$pk" 'BEGIN {
		printf "| %s | %.1f | %d | %.4f | %.2f | %.2f | %.4f | %.2f | %.1f | %.0f |\n",
			n, mb / 1e6, ev, w, (w > 0 ? ev / w / 1e6 : 0), (c > 0 ? ev / c / 1e6 : 0),
			cw, (cw > 0 ? ev / cw / 1e6 : 0), pk / 1024, (ev > 0 ? pk * 1024 / ev : 0) }'
done
echo "bench-kineto: load after: $(cat /proc/loadavg 2>/dev/null | cut -d' ' -f1-3); $runs runs each, best time"
exit $failed
