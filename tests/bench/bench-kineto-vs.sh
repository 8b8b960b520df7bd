#!/bin/sh
# bench-kineto-vs.sh - two builds on a 2.6 M-event PyTorch profiler trace, interleaved.
#
# usage: sh tests/bench/bench-kineto-vs.sh BEFORE AFTER [RUNS [THREADS...]]
#
# The trace: the largest inference anchor of ../shared/anchors/kineto
# (tracelens/vllm_decode_full/graph_capture_rank_0: 131,243 events, 34 MB of
# JSON) replicated 20 times by tests/bench/kineto-replicate.py, each copy
# later in time and with its own correlation ids: 2,624,860 events, 681 MB
# of JSON, 52.6 MB gzipped. Written once into $TMPDIR (default /tmp) and
# kept there for the next run ("skipped" without the anchors or python3).
#
# BEFORE and AFTER are two gpuprof binaries (the tree before a change, built
# with `make O=build-base`, and this one). RUNS rounds (default 5), each
# running, for every THREADS (default "1 2"),
#   breakdown --compat hta --threads T TRACE
#   report --threads T TRACE
# once with each binary, the order of the two swapped every round, so a
# machine whose load drifts slows both alike. Printed per command, threads
# and binary: the median wall time and its range, the median CPU time (user
# + system, all threads) and its range, the largest peak resident set; then
# AFTER / BEFORE of the medians, and whether the outputs were the same bytes
# in every round, and the median and range of the rounds' own ratios (the
# two runs of a round ran in the same minute). The load average before,
# during (the 1-minute figure read at every round) and after, the CPU count and the
# commits (BEFORE_REV, AFTER_REV if set, else what git says of this tree)
# are printed with the table: figures from a shared machine mean little
# without them.
set -u
BEFORE=${1:?usage: bench-kineto-vs.sh BEFORE AFTER [RUNS [THREADS...]]}
AFTER=${2:?usage: bench-kineto-vs.sh BEFORE AFTER [RUNS [THREADS...]]}
RUNS=${3:-5}
shift 2
[ $# -gt 0 ] && shift
THREADS=${*:-1 2}
top=$(cd "$(dirname "$0")/../.." && pwd)
anchor=$top/../shared/anchors/kineto/tracelens/vllm_decode_full/graph_capture_rank_0.pt.trace.json.gz
if [ ! -f "$anchor" ]; then
	echo "bench-kineto-vs: skipped (no $anchor)"
	exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "bench-kineto-vs: skipped (no python3)"; exit 0; }
trace=${TMPDIR:-/tmp}/gpuprof-bench-kineto-x20.json.gz
if [ ! -s "$trace" ]; then
	python3 "$top/tests/bench/kineto-replicate.py" "$anchor" 20 "$trace.tmp" &&
		mv "$trace.tmp" "$trace" || exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-kineto-vs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
after_rev=${AFTER_REV:-$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)}
echo "bench-kineto-vs: $trace, $(wc -c <"$trace") bytes; before: $BEFORE (${BEFORE_REV:-commit not given});" \
	"after: $AFTER ($after_rev)"
echo "bench-kineto-vs: load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $RUNS rounds"
python3 - "$BEFORE" "$AFTER" "$trace" "$RUNS" "$tmp" $THREADS <<'PY'
import filecmp, os, sys, time
before, after, trace, runs, tmp = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
threads = sys.argv[6:]
cmds = (("breakdown --compat hta", ["breakdown", "--compat", "hta"]), ("report", ["report"]))

def out(b, c, t):
    return os.path.join(tmp, "%s-%s-%s.out" % (b, c.split()[0], t))

def run(path, args, o):
    pid = os.fork()
    if pid == 0:
        fd = os.open(o, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        nul = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(nul, 2)
        os.execv(path, [path] + args)
    w0 = time.perf_counter()
    _, status, ru = os.wait4(pid, 0)
    w = time.perf_counter() - w0
    if status:
        sys.exit("bench-kineto-vs: %s %s failed" % (path, " ".join(args)))
    return w, ru.ru_utime + ru.ru_stime, ru.ru_maxrss

res = {}
loads = []
for r in range(runs):
    with open("/proc/loadavg") as f:
        loads.append(float(f.read().split()[0]))
    for c, args in cmds:
        for t in threads:
            order = (("before", before), ("after", after))
            if r % 2:
                order = order[::-1]
            for b, path in order:
                a = args + ["--threads", t, trace]
                res.setdefault((c, t, b), []).append(run(path, a, out(b, c, t)))
            same = filecmp.cmp(out("before", c, t), out("after", c, t), shallow=False)
            res.setdefault((c, t, "same"), []).append(same)
med = lambda v: sorted(v)[len(v) // 2]
print("| command | threads | binary | wall, median (range) | CPU, median (range) | peak RSS | after / before: wall, CPU | by round: wall, CPU (median, range) | same output |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |")
for c, _ in cmds:
    for t in threads:
        wb = med([x[0] for x in res[(c, t, "before")]])
        cb = med([x[1] for x in res[(c, t, "before")]])
        for b in ("before", "after"):
            v = res[(c, t, b)]
            w = [x[0] for x in v]
            cpu = [x[1] for x in v]
            rss = max(x[2] for x in v) / 1024.0  # MiB
            ratio = "%.2fx, %.2fx" % (med(w) / wb, med(cpu) / cb) if b == "after" else ""
            pairs = ""
            if b == "after":
                pb = res[(c, t, "before")]
                pw = [a[0] / p[0] for p, a in zip(pb, v)]
                pc = [a[1] / p[1] for p, a in zip(pb, v)]
                pairs = "%.2fx (%.2f-%.2f), %.2fx (%.2f-%.2f)" % (
                    med(pw), min(pw), max(pw), med(pc), min(pc), max(pc))
            same = ("yes" if all(res[(c, t, "same")]) else "NO") if b == "after" else ""
            print("| %s | %s | %s | %.2f s (%.2f-%.2f) | %.2f s (%.2f-%.2f) | %.1f MiB | %s | %s | %s |" %
                  (c, t, b, med(w), min(w), max(w), med(cpu), min(cpu), max(cpu), rss, ratio,
                   pairs, same))
print("bench-kineto-vs: load average (1 minute) at the rounds: %.2f-%.2f" % (min(loads), max(loads)))
PY
echo "bench-kineto-vs: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
