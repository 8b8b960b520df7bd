#!/bin/sh
# bench-scaling.sh - load, report and flame on 1 and 2 threads, with the floor.
#
# usage: sh tests/bench/bench-scaling.sh GPUPROF TRACEGEN BENCH_LOAD [RUNS]
#
# On the 10 M-event generated trace (tracegen --steps 1000 --kernels 2500
# --devices 2, kept in $TMPDIR as bench-threads.sh keeps it), for 1 and 2
# threads, RUNS runs (default 3) of each, interleaved, median wall and CPU
# (user + system, all threads) of:
#   floor   bench-load read: open, read, inflate, CRC and decode every chunk
#   load    bench-load load: gpa_model_load, then release
#   report  gpuprof report --threads T (whole process, output to /dev/null)
#   flame   gpuprof flame --threads T -o x.svg (whole process)
# The floor is printed next to each, so the distance to it shows. The load
# average is printed before and after: on a shared machine wall times say
# how much CPU the process was given as much as how fast it is.
set -u
GPUPROF=${1:?usage: bench-scaling.sh GPUPROF TRACEGEN BENCH_LOAD [RUNS]}
TRACEGEN=${2:?usage: bench-scaling.sh GPUPROF TRACEGEN BENCH_LOAD [RUNS]}
BENCH_LOAD=${3:?usage: bench-scaling.sh GPUPROF TRACEGEN BENCH_LOAD [RUNS]}
RUNS=${4:-3}
command -v python3 >/dev/null 2>&1 || { echo "bench-scaling: skipped (no python3)"; exit 0; }
. "$(dirname "$0")/trace-10m.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-scaling-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "bench-scaling: $trace, $(wc -c <"$trace") bytes; load before: $(cut -d' ' -f1-3 /proc/loadavg), median of $RUNS"
python3 - "$GPUPROF" "$BENCH_LOAD" "$trace" "$RUNS" "$tmp" <<'PY'
import os, subprocess, sys, time
g, bl, trace, runs, tmp = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
cmds = {
    "floor": lambda t: [bl, "read", trace, t, "1"],
    "load": lambda t: [bl, "load", trace, t, "1"],
    "report": lambda t: [g, "report", "--threads", t, trace],
    "flame": lambda t: [g, "flame", "--threads", t, "-o", os.path.join(tmp, "x.svg"), trace],
}
res = {}
for _ in range(runs):
    for name, mk in cmds.items():
        for t in ("1", "2"):
            if name == "flame":
                try:
                    os.unlink(os.path.join(tmp, "x.svg"))
                except FileNotFoundError:
                    pass
            r0 = os.times(); w0 = time.perf_counter()
            p = subprocess.run(mk(t), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            w = time.perf_counter() - w0; r1 = os.times()
            if p.returncode:
                sys.exit("bench-scaling: %s failed" % " ".join(mk(t)))
            c = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
            res.setdefault((name, t), []).append((w, c))
med = lambda v: sorted(v)[len(v) // 2]
print("| measure | 1 thread wall / CPU | 2 threads wall / CPU | 2 / 1 wall | floor at 1 / 2 threads (wall) |")
print("| --- | ---: | ---: | ---: | ---: |")
fl = {t: med([w for w, _ in res[("floor", t)]]) for t in ("1", "2")}
for name in cmds:
    w1 = med([w for w, _ in res[(name, "1")]]); c1 = med([c for _, c in res[(name, "1")]])
    w2 = med([w for w, _ in res[(name, "2")]]); c2 = med([c for _, c in res[(name, "2")]])
    print("| %s | %.2f s / %.2f s | %.2f s / %.2f s | %.2fx | %.2f / %.2f s |" %
          (name, w1, c1, w2, c2, w2 / w1 if w1 else 0, fl["1"], fl["2"]))
PY
echo "bench-scaling: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
