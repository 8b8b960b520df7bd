#!/bin/sh
# bench-kineto-report.sh - Kineto JSON import inside an analysis, 1 and 2 threads.
#
# usage: sh tests/bench/bench-kineto-report.sh BENCH_KINETO GPUPROF [RUNS]
#
# Two inputs from the Kineto anchors (../shared/anchors/kineto beside the
# checkout; "skipped" without them): the largest file alone, and the six
# largest files together (one command, six ranks). Each file is converted
# once to a .gpz. Then, for 1 and 2 threads (--threads), RUNS runs each of
#   json  gpuprof report --threads T FILES.json.gz   (import + model + report)
#   gpz   gpuprof report --threads T FILES.gpz       (model + report)
# interleaved, and the median wall and CPU (user + system, all threads) of
# each. The import inside `report` is json - gpz; its rate is the trace
# events (every element of traceEvents, as BENCH_KINETO counts them) over
# that difference, in wall time and in CPU time (the CPU rate is the rate
# per core). The load average is printed before and after: on a shared
# machine the wall times say little without it.
set -u
bench=${1:?usage: bench-kineto-report.sh BENCH_KINETO GPUPROF [RUNS]}
gpuprof=${2:?usage: bench-kineto-report.sh BENCH_KINETO GPUPROF [RUNS]}
runs=${3:-7}
top=$(cd "$(dirname "$0")/../.." && pwd)
anchors=$top/../shared/anchors/kineto
if [ ! -d "$anchors" ]; then
	echo "bench-kineto-report: skipped (no $anchors)"
	exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "bench-kineto-report: skipped (no python3)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-kineto-report-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

files=$(find "$anchors" -name '*.json' -o -name '*.json.gz' | xargs ls -S | head -6)
i=0
for f in $files; do
	i=$((i + 1))
	"$gpuprof" convert --force "$f" "$tmp/$i.gpz" >/dev/null 2>&1 || { echo "FAIL convert $f"; exit 1; }
	"$bench" "$f" 1 | sed 's/.* events=\([0-9]*\).*/\1/' >"$tmp/$i.ev" || { echo "FAIL count $f"; exit 1; }
done

# median_pair RUNS THREADS "JSON FILES" "GPZ FILES" -> json_wall json_cpu gpz_wall gpz_cpu
median_pair() {
	python3 - "$gpuprof" "$@" <<'PY'
import os, subprocess, sys, time
g, runs, t, js, gz = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5].split()
res = {"j": ([], []), "g": ([], [])}
for _ in range(runs):
    for k, files in (("j", js), ("g", gz)):
        r0 = os.times()
        w0 = time.perf_counter()
        p = subprocess.run([g, "report", "--threads", t] + files,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        w = time.perf_counter() - w0
        r1 = os.times()
        if p.returncode:
            sys.exit("report failed")
        res[k][0].append(w)
        res[k][1].append((r1.children_user - r0.children_user) + (r1.children_system - r0.children_system))
med = lambda v: sorted(v)[len(v) // 2]
print("%.4f %.4f %.4f %.4f" % (med(res["j"][0]), med(res["j"][1]), med(res["g"][0]), med(res["g"][1])))
PY
}

echo "bench-kineto-report: load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), $(nproc) CPUs, median of $runs runs"
echo "| input | events | threads | report on JSON wall / CPU s | on .gpz wall / CPU s | import wall / CPU s | import M events/s wall / per core |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for case in one six; do
	js= gz= ev=0
	n=1
	[ "$case" = six ] && n=$i
	k=0
	for f in $files; do
		k=$((k + 1))
		[ $k -le $n ] || break
		js="$js $f"
		gz="$gz $tmp/$k.gpz"
		ev=$((ev + $(cat "$tmp/$k.ev")))
	done
	name=$(basename $(echo $js | cut -d' ' -f1))
	[ "$case" = six ] && name="the $n largest"
	for t in 1 2; do
		set -- $(median_pair "$runs" "$t" "$js" "$gz") || { echo "FAIL $case"; exit 1; }
		awk -v n="$name" -v ev="$ev" -v t="$t" -v jw="$1" -v jc="$2" -v gw="$3" -v gc="$4" 'BEGIN {
			iw = jw - gw; ic = jc - gc;
			printf "| %s | %d | %d | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %.2f / %.2f |\n",
				n, ev, t, jw, jc, gw, gc, iw, ic, (iw > 0 ? ev / iw / 1e6 : 0),
				(ic > 0 ? ev / ic / 1e6 : 0) }'
	done
done
echo "bench-kineto-report: load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
