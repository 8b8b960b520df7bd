#!/bin/sh
# gpuprof ops on a small PyTorch profiler trace: the kernel launched inside
# aten::addmm under aten::linear counts once, for aten::addmm; its FLOPs and
# bytes come from the recorded shapes. The same trace without shapes gives
# time-only rows and says why.
. "$TOP/tests/e2e/lib.sh"

write_trace() { # $1: 1 with shapes, 0 without
	python3 - "$1" >k.json <<'PY'
import json, sys
shapes = sys.argv[1] == "1"
def op(name, ts, dur, dims=None, types=None, conc=None):
    a = {"External id": 1}
    if shapes and dims is not None:
        a["Input Dims"] = dims
        a["Input type"] = types
        a["Concrete Inputs"] = conc
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
            "dur": dur, "args": a}
def launch(ts, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
            "tid": 1, "ts": ts, "dur": 10, "args": {"correlation": corr}}
def kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts,
            "dur": dur, "args": {"device": 0, "stream": 7, "correlation": corr,
                                 "grid": [1, 1, 1], "block": [128, 1, 1]}}
bf = "c10::BFloat16"
ev = [
    op("aten::linear", 100, 300, [[1024, 4096], [4096, 4096], [4096]], [bf, bf, bf],
       ["", "", ""]),
    op("aten::addmm", 110, 280, [[4096], [1024, 4096], [4096, 4096], [], []],
       [bf, bf, bf, "Scalar", "Scalar"], ["", "", "", "1", "1"]),
    launch(120, 5), kernel("sm90_gemm_bf16", 140, 100, 5),
    op("aten::relu", 500, 100, [[1024, 1024]], ["float"], [""]),
    launch(510, 6), kernel("relu_kernel", 530, 10, 6),
    launch(700, 7), kernel("outside", 720, 5, 7),
]
print(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0,
      "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640, "computeMajor": 9,
      "computeMinor": 0, "numSms": 132}], "traceEvents": ev}))
PY
}

write_trace 1
expect_rc 0 "$GPUPROF" ops --format json k.json
python3 - <<'PY' || fail "ops with shapes"
import json
d = json.load(open("out"))
t = d["totals"]
# three kernels; two inside operators (100 us + 10 us); the third has none
assert t["gpu_ops"] == 3 and t["gpu_ops_in_ops"] == 2, t
assert t["gpu_in_ops_ns"] == 110000 and t["gpu_ns"] == 115000, t
names = {r["operator"]: r for r in d["by_name"]}
assert "aten::linear" not in names, names          # no double counting
a = names["aten::addmm"]
# 2·1024·4096·4096 + 1024·4096 (bias) = 34363932672 FLOPs
assert a["calls"] == 1 and a["gpu_time_ns"] == 100000, a
assert a["gflop"] == 34.364, a
# (4096 + 1024·4096 + 4096·4096 + 1024·4096) · 2 bytes = 50339840; ratio 682.6389
assert a["data_moved_mb"] == 50.34 and a["flop_per_byte"] == 682.64, a
# in 100 us: 343.639 TFLOP/s; H100 SXM BF16 989.5 TFLOP/s, 3.35 TB/s: ridge 295.4,
# compute bound, 343.639 / 989.5 = 34.7 %
assert a["tflop_per_s"] == 343.639 and a["peak_tflop_per_s"] == 989.5, a
assert a["bound"] == "compute" and a["roofline_pct"] == 34.7, a
r = names["aten::relu"]
# 1048576 elements of 4 bytes read and written: 8388608 B in 10 us = 0.839 TB/s,
# memory bound: 0.839 / 3.35 = 25.0 %
assert r["model"] == "unary" and r["data_moved_mb"] == 8.389, r
assert r["tb_per_s"] == 0.839 and r["bound"] == "memory" and r["roofline_pct"] == 25.0, r
args = d["by_inputs"]
assert len(args) == 2 and args[0]["operator"] == "aten::addmm", args
assert args[0]["inputs"].startswith("D=[[4096],[1024,4096],[4096,4096],[],[]]"), args[0]
assert args[0]["type"] == "c10::BFloat16" and args[0]["tflop_per_s_median"] == 343.639, args[0]
assert d["note"] is None, d
PY

expect_rc 0 "$GPUPROF" ops k.json
grep -q "^aten::addmm .* gemm " out || fail "text row"
expect_rc 0 "$GPUPROF" ops --format csv --table names k.json
head -1 out | grep -q '^Operator,Model,Calls' || fail "csv header"
expect_rc 0 "$GPUPROF" ops --format markdown k.json
grep -q '^### Operators by unique inputs' out || fail "markdown"

write_trace 0
expect_rc 0 "$GPUPROF" ops --format json k.json
python3 - <<'PY' || fail "ops without shapes"
import json
d = json.load(open("out"))
assert "record_shapes=True" in d["note"], d["note"]
names = {r["operator"]: r for r in d["by_name"]}
a = names["aten::addmm"]
assert a["model"] == "time only" and a["gpu_time_ns"] == 100000, a
assert a["gflop"] is None and a["tflop_per_s"] is None and a["bound"] == "", a
assert d["totals"]["flops"] == 0, d
PY
expect_rc 0 "$GPUPROF" ops k.json
grep -q "Note: no operator has recorded shapes" out || fail "text note"

expect_rc 2 "$GPUPROF" ops
expect_rc 2 "$GPUPROF" ops --table nope k.json
