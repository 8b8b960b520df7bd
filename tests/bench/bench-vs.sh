#!/bin/sh
# bench-vs.sh - report and flame of two builds, interleaved, on ten million events.
#
# usage: sh tests/bench/bench-vs.sh BEFORE AFTER TRACEGEN [RUNS]
#
# BEFORE and AFTER are two gpuprof binaries (say the tree before a change,
# built in a git worktree, and this one). On the 10 M-event generated trace
# (tracegen --steps 1000 --kernels 2500 --devices 2, kept in $TMPDIR as
# bench-threads.sh keeps it), RUNS rounds (default 7), each running
#   report --format json   (output to /dev/null)
#   flame -o x.svg
# once with each binary, the order of the two swapped every round, so a
# machine whose speed drifts over minutes slows both alike. Printed per
# command and binary: the median wall time with its range, the median CPU
# time (user + system, all threads) with its range, the largest peak
# resident set and bytes per event; then AFTER / BEFORE of the medians, and
# the median and range of the rounds' own ratios (each round's two runs ran
# in the same minute, so these ratios hold up better on a machine whose load
# drifts; CPU time too, which counts less of the waiting for a core). The
# outputs of the two binaries are compared too (they should be the same
# bytes). The load average before, during (the range of the 1-minute figure
# read at every round) and after, and the commits (BEFORE_REV, AFTER_REV if
# set, else what git says of this tree) are printed with it: a figure from a
# shared machine means little without them.
set -u
BEFORE=${1:?usage: bench-vs.sh BEFORE AFTER TRACEGEN [RUNS]}
AFTER=${2:?usage: bench-vs.sh BEFORE AFTER TRACEGEN [RUNS]}
TRACEGEN=${3:?usage: bench-vs.sh BEFORE AFTER TRACEGEN [RUNS]}
RUNS=${4:-7}
command -v python3 >/dev/null 2>&1 || { echo "bench-vs: skipped (no python3)"; exit 0; }
. "$(dirname "$0")/trace-10m.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
top=$(cd "$(dirname "$0")/../.." && pwd)
after_rev=${AFTER_REV:-$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)}
echo "bench-vs: before: $BEFORE (${BEFORE_REV:-commit not given}); after: $AFTER ($after_rev)"
echo "bench-vs: $trace, $(wc -c <"$trace") bytes; load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $RUNS rounds"
python3 - "$BEFORE" "$AFTER" "$trace" "$RUNS" "$tmp" <<'PY'
import filecmp, os, resource, subprocess, sys, time
before, after, trace, runs, tmp = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
events = None
info = subprocess.run([after, "info", "--json", trace], capture_output=True, text=True)
if info.returncode == 0:
    import json
    try:
        events = json.loads(info.stdout)["files"][0]["events"]
    except (ValueError, KeyError, IndexError):
        events = None

def out(b, c):
    return os.path.join(tmp, "%s-%s.%s" % (b, c, "svg" if c == "flame" else "json"))

def cmd(path, b, c):
    if c == "report":
        return [path, "report", "--format", "json", "-o", out(b, c), trace]
    return [path, "flame", "-o", out(b, c), trace]

res = {}
loads = []
for r in range(runs):
    with open("/proc/loadavg") as f:
        loads.append(float(f.read().split()[0]))
    for c in ("report", "flame"):
        order = (("before", before), ("after", after))
        for b, path in (order if r % 2 == 0 else order[::-1]):
            try:
                os.unlink(out(b, c))
            except FileNotFoundError:
                pass
            pid = os.fork()
            if pid == 0:
                fd = os.open(os.devnull, os.O_WRONLY)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                os.execv(path, cmd(path, b, c))
            w0 = time.perf_counter()
            _, status, ru = os.wait4(pid, 0)
            w = time.perf_counter() - w0
            if status:
                sys.exit("bench-vs: %s failed" % " ".join(cmd(path, b, c)))
            res.setdefault((c, b), []).append((w, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
        same = filecmp.cmp(out("before", c), out("after", c), shallow=False)
        res.setdefault((c, "same"), []).append(same)
med = lambda v: sorted(v)[len(v) // 2]
print("| command | binary | wall, median (range) | CPU, median (range) | peak RSS | B/event | after / before: wall, CPU (medians) | after / before by round: wall, CPU (median, range) | same output |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for c in ("report", "flame"):
    wb = med([w for w, _, _ in res[(c, "before")]])
    cb = med([x[1] for x in res[(c, "before")]])
    for b in ("before", "after"):
        v = res[(c, b)]
        w = [x[0] for x in v]
        cpus = [x[1] for x in v]
        cpu = med(cpus)
        rss = max(x[2] for x in v)  # KiB
        bpe = "%.1f" % (rss * 1024.0 / events) if events else "-"
        ratio = pairs = same = ""
        if b == "after":
            ratio = "%.2fx, %.2fx" % (med(w) / wb, cpu / cb)
            pw = [a[0] / p[0] for p, a in zip(res[(c, "before")], v)]
            pc = [a[1] / p[1] for p, a in zip(res[(c, "before")], v)]
            pairs = "%.2fx (%.2f-%.2f), %.2fx (%.2f-%.2f)" % (med(pw), min(pw), max(pw),
                                                            med(pc), min(pc), max(pc))
            same = "yes" if all(res[(c, "same")]) else "NO"
        print("| %s | %s | %.2f s (%.2f-%.2f) | %.2f s (%.2f-%.2f) | %.0f MiB | %s | %s | %s | %s |" %
              (c, b, med(w), min(w), max(w), cpu, min(cpus), max(cpus), rss / 1024.0, bpe,
               ratio, pairs, same))
print("bench-vs: load average (1 minute) at the rounds: %.2f-%.2f" % (min(loads), max(loads)))
PY
echo "bench-vs: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
