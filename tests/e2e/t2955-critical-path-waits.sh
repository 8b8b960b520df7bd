#!/bin/sh
# gpuprof critical-path: a host waiting for the GPU is GPU time on the path
# (docs/critical-path.md, "Waiting for the GPU"). Small Kineto traces whose
# paths are worked by hand (times in us from the step's start):
#   poll:  kernel K1 [20,820); the host polls cudaEventQuery every 10 us until
#          it answers at 820, launches K2 [840,900), syncs [836,901); step 910.
#          Path: cpu 10, launch 10, K1 800, the poll's answer 2 (sync), cpu 8,
#          launch 10, K2 60, the sync's tail 1, cpu 9.
#   d2h:   K1 [20,520), K2 [520,920), then a blocking cudaMemcpy [22,960) whose
#          copy runs [921,955) behind them; step 1000. Path: cpu 10, launch 10,
#          K1 500, K2 400, idle 1, copy 34, sync 5, cpu 40.
#   spin:  K1 [20,600) launched at 10; the host spins in a CPU op (no CUDA call)
#          until 601 and launches K2 at 603 [610,650), syncs [609,651); step 700.
#          Path: cpu 10, launch 10, K1 580, 3 sync, launch 7, K2 40, 1 sync, cpu 49.
#   late:  the same, K1 ending at 570, 33 us before the host goes on: not a wait,
#          the gap stays cpu (588).
#   data:  a DataLoader __next__ op [0,500), then K [515,700); data-loading 500.
#   warm:  a first cudaMalloc of 2 ms, then K [2030,2400): warm-up 2000.
. "$TOP/tests/e2e/lib.sh"

python3 - <<'PY' || fail "generating the traces"
import json
def rt(name, ts, dur, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 100, "ts": ts,
            "dur": dur, "args": {"correlation": corr}}
def gpu(cat, name, ts, dur, corr):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": corr, "stream": 7, "device": 0, "context": 1}}
def step(dur):
    return {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 100,
            "ts": 0, "dur": dur}
def cpu(name, ts, dur):
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 100, "ts": ts, "dur": dur}
def write(name, ev):
    json.dump({"schemaVersion": 1, "traceEvents": ev}, open(name + ".json", "w"))

poll = [step(910), rt("cudaLaunchKernel", 10, 5, 1), gpu("kernel", "k1", 20, 800, 1),
        rt("cudaEventRecord", 16, 2, 2)]
poll += [rt("cudaEventQuery", t, 2, 1000 + t) for t in range(30, 821, 10)]
poll += [rt("cudaLaunchKernel", 830, 5, 3), gpu("kernel", "k2", 840, 60, 3),
         rt("cudaDeviceSynchronize", 836, 65, 4)]
write("poll", poll)
write("d2h", [step(1000), rt("cudaLaunchKernel", 10, 5, 1), gpu("kernel", "k1", 20, 500, 1),
              rt("cudaLaunchKernel", 16, 5, 2), gpu("kernel", "k2", 520, 400, 2),
              rt("cudaMemcpy", 22, 938, 3),
              gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 921, 34, 3)])
def spin(k1_dur):
    return [step(700), rt("cudaLaunchKernel", 10, 5, 1), gpu("kernel", "k1", 20, k1_dur, 1),
            cpu("dispatch_wait", 16, 585), rt("cudaLaunchKernel", 603, 5, 2),
            gpu("kernel", "k2", 610, 40, 2), rt("cudaDeviceSynchronize", 609, 42, 3)]
write("spin", spin(580))
write("late", spin(550))
write("data", [step(720), cpu("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 500),
               rt("cudaLaunchKernel", 505, 5, 1), gpu("kernel", "k", 515, 185, 1),
               rt("cudaDeviceSynchronize", 511, 190, 2)])
write("warm", [step(2500), rt("cudaMalloc", 10, 2000, 1), rt("cudaLaunchKernel", 2020, 5, 2),
               gpu("kernel", "k", 2030, 370, 2), rt("cudaDeviceSynchronize", 2026, 375, 3)])
PY

# check TRACE cat=us...: the step's time on the path by category, exactly.
check() {
	trace=$1
	shift
	expect_rc 0 "$GPUPROF" critical-path --format json "$trace.json"
	[ -s err ] && fail "$trace: unexpected stderr: $(cat err)"
	python3 - "$@" <<'PY' || fail "$trace: $(head -c 900 out)"
import json, sys
d = json.load(open("out"))
s = d["steps"][0]
cats = [c["category"] for c in d["composition"]]
assert sum(s[c.replace("-", "_") + "_ns"] for c in cats) == s["time_ns"], s
want = {c: 0 for c in cats}
for kv in sys.argv[1:]:
    k, v = kv.split("=")
    want[k] = int(float(v) * 1000)
got = {c: s[c.replace("-", "_") + "_ns"] for c in cats}
assert got == want, {c: (got[c], want[c]) for c in cats if got[c] != want[c]}
PY
}
check poll cpu=27 launch-overhead=20 kernel=860 synchronization=3
check d2h cpu=50 launch-overhead=10 kernel=900 idle=1 copy=34 synchronization=5
check spin cpu=59 launch-overhead=17 kernel=620 synchronization=4
check late cpu=647 launch-overhead=12 kernel=40 synchronization=1
check data cpu=24 data-loading=500 launch-overhead=10 kernel=185 synchronization=1
check warm cpu=119 warm-up=2000 launch-overhead=10 kernel=370 synchronization=1

# The what-if follows the wait: K1 twice as fast in the poll trace ends the
# poll 400 us earlier.
expect_rc 0 "$GPUPROF" critical-path --format json --speedup k1=2 poll.json
python3 -c '
import json; t = json.load(open("out"))["totals"]
assert t["time_ns"] - t["what_if_time_ns"] == 400000, t' || fail "poll what-if: $(head -c 300 out)"
