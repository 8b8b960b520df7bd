#!/bin/sh
# The report's verdict comes from the critical path (docs/report.md, "The
# verdict"): generated Kineto traces of five steps, one pattern each, whose
# bound is known by construction; text, Markdown and JSON say the same.
#   copy:    each step a 900 us pinned host-to-device copy and 4 short kernels
#   prelude: 570 us of host preprocessing (a CPU op) before each step's first
#            launch, then 4 kernels of 100 us: host-bound, busy ~40 % of the step
#   spin:    a 900 us kernel the host spins on (a CPU op, no CUDA call) then 3
#            short kernels: compute
#   d2h:     4 kernels of 200 us, then a blocking cudaMemcpy device-to-host
#            behind them: compute, not launch overhead
#   warm:    the same compute steps after a first step that starts with a 50 ms
#            first call: compute, the first step left out as warm-up
#   data:    a DataLoader fetch of 800 us before 4 kernels of 30 us: data-loading
. "$TOP/tests/e2e/lib.sh"

python3 - <<'PY' || fail "generating the traces"
import json
corr = [0]
def rt(name, ts, dur):
    corr[0] += 1
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 100, "ts": ts,
            "dur": dur, "args": {"correlation": corr[0]}}
def gpu(cat, name, ts, dur, extra=None):
    a = {"correlation": corr[0], "stream": 7, "device": 0, "context": 1}
    a.update(extra or {})
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur, "args": a}
def cpu(name, ts, dur):
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 100, "ts": ts, "dur": dur}
def step(n, ts, dur):
    return {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1,
            "tid": 100, "ts": ts, "dur": dur}
def launch(t, k, start, dur):
    return [rt("cudaLaunchKernel", t, 4), gpu("kernel", k, start, dur)]
def sync(t, until):
    return [rt("cudaDeviceSynchronize", t, until - t)]

def copy_step(t0):
    ev = [rt("cudaMemcpyAsync", t0 + 5, 6),
          gpu("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", t0 + 12, 900, {"bytes": 9437184})]
    for i in range(4):
        ev += launch(t0 + 12 + 6 * i, "gemm%d" % i, t0 + 913 + 20 * i, 18)
    return ev + sync(t0 + 40, t0 + 995)
def prelude_step(t0):
    ev = [cpu("decode_resize", t0 + 1, 569)]
    for i in range(4):
        ev += launch(t0 + 572 + 5 * i, "conv%d" % i, t0 + 580 + 100 * i, 100)
    return ev + sync(t0 + 600, t0 + 981)
def spin_step(t0):
    ev = launch(t0 + 2, "dispatch", t0 + 10, 900)
    ev += [cpu("wait_flag", t0 + 7, 905)]
    for i in range(3):
        ev += launch(t0 + 913 + 5 * i, "combine%d" % i, t0 + 920 + 20 * i, 18)
    return ev + sync(t0 + 930, t0 + 980)
def d2h_step(t0):
    ev = []
    for i in range(4):
        ev += launch(t0 + 2 + 5 * i, "layer%d" % i, t0 + 10 + 200 * i, 200)
    ev += [rt("cudaMemcpy", t0 + 25, 970),
           gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", t0 + 811, 180, {"bytes": 65536})]
    return ev
def data_step(t0):
    ev = [cpu("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 1, 800)]
    for i in range(4):
        ev += launch(t0 + 805 + 5 * i, "mlp%d" % i, t0 + 830 + 30 * i, 30)
    return ev + sync(t0 + 830, t0 + 951)

def write(name, fn, first=None):
    ev, t = [], 0
    for n in range(5):
        dur = 1000
        if first and n == 0:
            ev += first(t)
            t += 50000
        ev += fn(t)
        ev.append(step(n, t - (50000 if first and n == 0 else 0), dur + (50000 if first and n == 0 else 0)))
        t += 1000
    json.dump({"schemaVersion": 1, "traceEvents": ev}, open(name + ".json", "w"))

write("copy", copy_step)
write("prelude", prelude_step)
write("spin", spin_step)
write("d2h", d2h_step)
write("warm", d2h_step, first=lambda t: [rt("cudaMalloc", t + 1, 49990)])
write("data", data_step)
PY

# verdict TRACE BOUND [FINDING]: the JSON's bound, its sentence in the text and
# Markdown headline, and a finding of that category among the material ones.
verdict() {
	expect_rc 0 "$GPUPROF" report --format json "$1.json"
	python3 - "$@" <<'PY' || fail "$1: $(head -c 1200 out)"
import json, sys
name, bound = sys.argv[1], sys.argv[2]
d = json.load(open("out"))
b = d["bound"]
assert b["bound"] == bound, (b["bound"], b["path"])
assert b["steps"] >= 4, b
assert sum(b["path"].values()) - b["path"]["warm_up_ns"] == b["path_ns"], b
if len(sys.argv) > 3:
    cats = [f["category"] for f in d["findings"]]
    assert sys.argv[3] in cats, cats
open("sentence", "w").write(b["text"].split(" (")[0])
PY
	expect_rc 0 "$GPUPROF" report "$1.json"
	tr '\n' ' ' <out | tr -s ' ' >flat
	grep -qF "$(cat sentence)" flat || fail "$1: the text headline does not say '$(cat sentence)'"
	expect_rc 0 "$GPUPROF" report --format markdown "$1.json"
	grep -q "^Bound: $2-bound" out || fail "$1: Markdown: $(head -5 out)"
}
verdict copy copy copy-bound
verdict prelude host host-prelude
verdict spin compute
verdict d2h compute
verdict warm compute
verdict data data-loading

# copy: the path's copies are host-to-device, and the headline says so.
expect_rc 0 "$GPUPROF" report copy.json
grep -q "copy-bound: host-to-device copies are" out || fail "copy: $(head -5 out)"
# prelude: GPU busy per step agrees with the step table (about 40 %), not the
# GPU's own window (about 100 %).
expect_rc 0 "$GPUPROF" report --format json prelude.json
python3 - <<'PY' || fail "prelude busy: $(head -c 600 out)"
import json
d = json.load(open("out"))
b = d["bound"]
busy = b["step_gpu_busy_ns"] / b["step_wall_ns"]
assert 0.35 < busy < 0.45, busy
table = sum(s["gpu_busy_ns"] for s in d["steps"]) / sum(s["wall_ns"] for s in d["steps"])
assert abs(busy - table) < 1e-9, (busy, table)
assert b["host_before_gpu_ns"] >= 5 * 570000, b
PY
expect_rc 0 "$GPUPROF" report prelude.json
grep -q "GPU busy 4[0-9]\.[0-9][0-9]% of step time" out || fail "prelude: $(head -6 out)"
# warm: the first step is left out and said.
expect_rc 0 "$GPUPROF" report --format json warm.json
python3 -c '
import json; b = json.load(open("out"))["bound"]
assert b["warm_up_steps"] == 1 and b["warm_up_ns"] >= 50000000, b' || fail "warm: $(head -c 600 out)"
# d2h: the blocking copy does not make the kernels launch overhead.
python3 -c '
import json; b = json.load(open("out"))["bound"]
assert b["path"]["launch_overhead_ns"] * 20 < b["path"]["kernel_ns"], b' || fail "d2h launch: $(head -c 600 out)"

# A kernel built for a GPU two generations older (its name says sm75; the
# device is sm90) is a finding; an sm80 kernel on sm90 is not.
python3 - <<'PY' || fail "generating arch.json"
import json
ev, t = [], 0
names = ["sm75_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_kernel",
         "sm80_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x32_kernel", "softmax_kernel"]
# launched ahead, run back to back, one sync at the end: the kernels are the path
for i in range(30):
    k = names[i % 3]
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100,
               "ts": 5 * i, "dur": 4, "args": {"correlation": i + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": k, "pid": 0, "tid": 7, "ts": 10 + 90 * i, "dur": 90,
               "args": {"correlation": i + 1, "stream": 7, "device": 0, "context": 1}})
ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 100,
           "ts": 151, "dur": 2710, "args": {"correlation": 99}})
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3",
           "computeMajor": 9, "computeMinor": 0, "numSms": 132}], "traceEvents": ev},
          open("arch.json", "w"))
PY
expect_rc 0 "$GPUPROF" report --format json arch.json
python3 - <<'PY' || fail "old-arch finding: $(head -c 1500 out)"
import json
d = json.load(open("out"))
f = [f for f in d["findings"] if f["category"] == "old-arch-kernel"]
assert len(f) == 1, [x["category"] for x in d["findings"]]
f = f[0]
assert f["count"] == 10 and f["count_ns"] == 10 * 90000, f
assert len(f["evidence"]) == 1 and "built for sm75 on an sm90 device" in f["evidence"][0]["what"], f
PY
