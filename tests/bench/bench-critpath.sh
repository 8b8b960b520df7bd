#!/bin/sh
# bench-critpath.sh - gpuprof critical-path on the 1 M-event bench trace
# (docs/performance.md, "Critical path and what-if").
#
# usage: tests/bench/bench-critpath.sh GPUPROF TRACEGEN [RUNS]
#
# Generates `TRACEGEN --steps 2400` (about 1 M events: kernels, launch
# calls, copies, 2,400 steps), then runs `GPUPROF critical-path --format
# json` as a user does (reading, model, steps, graph, path, rendering) RUNS
# times (default 3) per case: per step, per step with a what-if, one window
# over the whole trace, and that window with a what-if. Prints per case the
# median and range of the CPU time (user + system) and wall time, and the
# peak resident set size with its bytes per event (the targets: under 1 s
# and 100 bytes per event). On a shared machine the CPU time is the figure
# to compare. Exit status 1 when a command failed.
set -u

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 GPUPROF TRACEGEN [RUNS]" >&2
	exit 2
fi
gpuprof=$1
tracegen=$2
runs=${3:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-critpath.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

events=$("$tracegen" --steps 2400 -o "$dir/1m.gpz" | sed -n 's/.*: \([0-9]*\) events$/\1/p')
[ -n "$events" ] || exit 1
echo "gpuprof critical-path on $events events, $runs runs each; load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
python3 - "$gpuprof" "$dir/1m.gpz" "$events" "$runs" <<'PY' || exit 1
import os, subprocess, sys, time
g, path, events, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cases = [
    ("per step", []),
    ("per step, --speedup gemm=2", ["--speedup", "gemm=2"]),
    ("--window 0:100s", ["--window", "0:100s"]),
    ("--window 0:100s --speedup gemm=2", ["--window", "0:100s", "--speedup", "gemm=2"]),
]
for name, args in cases:
    cpu, wall, rss = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen([g, "critical-path", "--format", "json"] + args + [path],
                             stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall.append(time.perf_counter() - t0)
        if status:
            sys.exit(1)
        cpu.append(ru.ru_utime + ru.ru_stime)
        rss.append(ru.ru_maxrss * 1024)
    cpu.sort()
    wall.sort()
    rss.sort()
    m = len(cpu) // 2
    print("  %-34s CPU median %.2f s (%.2f-%.2f), wall median %.2f s (%.2f-%.2f), "
          "peak RSS %.1f MiB, %.1f B/event"
          % (name, cpu[m], cpu[0], cpu[-1], wall[m], wall[0], wall[-1], rss[m] / 2**20,
             rss[m] / events))
PY
