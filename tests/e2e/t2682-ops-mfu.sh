#!/bin/sh
# MFU and MBU with nothing typed: each step's FLOPs and bytes are those of the
# operators it ran, from their recorded shapes; --flops-per-step still wins;
# the Utilization table says which was used.
. "$TOP/tests/e2e/lib.sh"

python3 - >m.json <<'PY'
import json
bf = "c10::BFloat16"
ev = []
for s in range(2):
    b = 1000 * s
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1,
               "tid": 1, "ts": b, "dur": 1000, "args": {}})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
               "ts": b + 100, "dur": 300, "args": {"Input Dims": [[1024, 4096], [4096, 4096]],
               "Input type": [bf, bf], "Concrete Inputs": ["", ""]}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
               "tid": 1, "ts": b + 120, "dur": 10, "args": {"correlation": 10 + s}})
    ev.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": b + 140,
               "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 10 + s,
               "grid": [1, 1, 1], "block": [128, 1, 1]}})
print(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0,
      "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640, "computeMajor": 9,
      "computeMinor": 0, "numSms": 132}], "traceEvents": ev}))
PY

expect_rc 0 "$GPUPROF" mfu --format json m.json
python3 - <<'PY' || fail "mfu from recorded shapes"
import json
d = json.load(open("out"))
u = {r["metric"]: r["value"] for r in d["utilization"]}
assert u["FLOPs per step from"] == "recorded operator shapes (gpuprof ops)", u
# 2·1024·4096·4096 = 34359738368 FLOPs in a 1 ms step: 34.36 TFLOP/s of 989.5: 3.47 %
assert u["model FLOPs, median step"] == "3.43597e+10", u
assert u["MFU, median step (%)"] == "3.47", u
# (1024·4096 + 4096·4096 + 1024·4096)·2 = 50331648 B in 1 ms of 3350 GB/s: 1.50 %
assert u["bytes per step from"] == "recorded operator shapes (gpuprof ops)", u
assert u["MBU, median step (%)"] == "1.50", u
s = d["steps"]
assert len(s) == 2 and s[0]["tflop_per_s_per_gpu"] == 34.36 and s[1]["mfu_pct"] == 3.47, s
PY

expect_rc 0 "$GPUPROF" mfu --format json --flops-per-step 1e11 m.json
python3 - <<'PY' || fail "--flops-per-step overrides"
import json
d = json.load(open("out"))
u = {r["metric"]: r["value"] for r in d["utilization"]}
assert u["FLOPs per step from"] == "--flops-per-step", u
# 1e11 in 1 ms: 100 TFLOP/s of 989.5: 10.11 %
assert u["MFU, median step (%)"] == "10.11", u
PY

expect_rc 0 "$GPUPROF" report --format json m.json
python3 - <<'PY' || fail "report"
import json
d = json.load(open("out"))
assert d["schema"] == "gpuprof-report/2", d["schema"]
o = d["operators"]
assert len(o) == 1 and o[0]["operator"] == "aten::mm" and o[0]["calls"] == 2, o
# 34359738368 FLOPs per call, two calls: 68.719 GFLOPs; 200 us: 343.597 TFLOP/s
assert o[0]["gflop"] == 68.719 and o[0]["tflop_per_s"] == 343.597, o
assert o[0]["bound"] == "compute", o
u = {r["metric"]: r["value"] for r in d["utilization"]}
assert u["FLOPs per step from"] == "recorded operator shapes (gpuprof ops)", u
PY
