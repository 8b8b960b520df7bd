#!/bin/sh
# bench-python.sh - the Python module on the 2.6 M-event Kineto trace of bench-kineto-vs:
# gpuprof.open(TRACE).kernels.to_pandas(), in a fresh interpreter per run.
#
# usage: sh tests/bench/bench-python.sh BUILD [RUNS [THREADS...]]
#
# BUILD holds python/gpuprof (make python). Each run, for each THREADS (default "1 2"),
# is one /usr/bin/python3 process that imports gpuprof, pandas and NumPy, then times
# open (import and model), the kernel table's DataFrame, and the DataFrames of the other
# event tables (API calls, copies, memsets, NVTX and PyTorch ranges, syncs) apart.
# Printed per thread count: the median and range of CPU time (user + system, all
# threads, getrusage) and of wall time of each part, the rows, and the largest peak
# resident set of the process; the load average before and after.
set -u
BUILD=${1:?usage: bench-python.sh BUILD [RUNS [THREADS...]]}
RUNS=${2:-3}
shift
[ $# -gt 0 ] && shift
THREADS=${*:-1 2}
top=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
anchor=$top/../shared/anchors/kineto/tracelens/vllm_decode_full/graph_capture_rank_0.pt.trace.json.gz
trace=${TMPDIR:-/tmp}/gpuprof-bench-kineto-x20.json.gz
if [ ! -s "$trace" ]; then
	[ -f "$anchor" ] || { echo "bench-python: skipped (no $anchor)"; exit 0; }
	"$PY" "$top/tests/bench/kineto-replicate.py" "$anchor" 20 "$trace.tmp" &&
		mv "$trace.tmp" "$trace" || exit 1
fi
"$PY" -c 'import pandas, numpy' 2>/dev/null || { echo "bench-python: skipped (no pandas)"; exit 0; }
echo "bench-python: $trace, $(wc -c <"$trace") bytes; load before: $(cut -d' ' -f1-3 /proc/loadavg)," \
	"$(nproc) CPUs, $RUNS runs"
for t in $THREADS; do
	for r in $(seq "$RUNS"); do
		PYTHONPATH=$BUILD/python "$PY" - "$trace" "$t" <<'PY'
import resource, sys, time
import numpy, pandas
import gpuprof

def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime

trace, threads = sys.argv[1], int(sys.argv[2])
c0, w0 = cpu(), time.monotonic()
t = gpuprof.open(trace, threads=threads)
c1, w1 = cpu(), time.monotonic()
df = t.kernels.to_pandas()
c2, w2 = cpu(), time.monotonic()
# every event table, as HTA's load makes one DataFrame of every event
rows = sum(len(t.table(n).to_pandas()) for n in ("api", "copies", "memsets", "nvtx", "sync"))
c3, w3 = cpu(), time.monotonic()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(threads, c1 - c0, w1 - w0, c2 - c1, w2 - w1, len(df), c3 - c2, w3 - w2, rows, peak)
PY
	done
done | "$PY" -c '
import statistics, sys
rows = {}
for line in sys.stdin:
    f = line.split()
    rows.setdefault(int(f[0]), []).append([float(x) for x in f[1:]])
def m(v):
    return "%.2f s (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
print("| threads | open: CPU | open: wall | kernels.to_pandas(): CPU | wall | kernels "
      "| other tables to_pandas(): CPU | wall | rows | peak RSS |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for t, v in sorted(rows.items()):
    c = list(zip(*v))
    print("| %d | %s | %s | %s | %s | %d | %s | %s | %d | %.0f MiB |" % (t, m(c[0]), m(c[1]),
          m(c[2]), m(c[3]), int(c[4][0]), m(c[5]), m(c[6]), int(c[7][0]), max(c[8])))
'
echo "bench-python: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
