#!/bin/sh
# A PyTorch profiler trace carries its own occupancy estimate per kernel
# ("est. achieved occupancy %", "blocks per SM", "warps per SM"): it is kept
# in kernel fields 45-47 through import and convert, and shown beside ours.
. "$TOP/tests/e2e/lib.sh"

cat >k.json <<'JSON'
{"schemaVersion": 1,
 "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640,
   "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
   "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536,
   "warpSize": 32, "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 233472,
   "numSms": 132, "sharedMemPerBlockOptin": 232448}],
 "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 100.0, "dur": 10.5,
   "args": {"device": 0, "stream": 7, "correlation": 1, "registers per thread": 64,
   "shared memory": 0, "blocks per SM": 0.5, "warps per SM": 4.0,
   "grid": [66, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 6.25}},
  {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 120.0, "dur": 9.5,
   "args": {"device": 0, "stream": 7, "correlation": 2, "registers per thread": 64,
   "shared memory": 0, "blocks per SM": 0.5, "warps per SM": 4.0,
   "grid": [66, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 6.25}},
  {"ph": "X", "cat": "kernel", "name": "small_k", "pid": 0, "tid": 7, "ts": 140.0, "dur": 1,
   "args": {"device": 0, "stream": 7, "correlation": 3, "registers per thread": 32,
   "shared memory": 0, "grid": [1, 1, 1], "block": [1024, 1, 1]}}
 ]}
JSON

expect_rc 0 "$GPUPROF" convert k.json k.gpz
expect_rc 0 "$GPUPROF" dump --json --kind kernel k.gpz
python3 - <<'PY' || fail "source occupancy fields not kept"
import json
k = [json.loads(l) for l in open("out") if l.startswith("{")]
assert len(k) == 3, k
assert k[0]["src_occupancy_bp"] == 625 and k[0]["src_blocks_per_sm_milli"] == 500, k[0]
assert k[0]["src_warps_per_sm_milli"] == 4000, k[0]
assert "src_occupancy_bp" not in k[2] or k[2]["src_occupancy_bp"] == 0, k[2]
PY
for f in k.json k.gpz; do
	expect_rc 0 "$GPUPROF" occupancy --format json "$f"
	python3 - <<'PY' || fail "occupancy of $f"
import json
d = json.load(open("out"))
g = {x["kernel"]: x for x in d["kernels"]}
a = g["gemm_a"]
# H100: 64 regs x 256 threads -> 4 blocks, 32 warps of 64: 50 %; the grid of 66
# blocks fills 66 of 132 x 4 slots: 66 x 8 warps / (132 x 64) = 6.25 %.
assert a["launches"] == 2 and a["gpu_time_ns"] == 20000, a
assert a["blocks_per_sm"] == 4 and a["occupancy_pct"] == 50 and a["limiter"] == "registers", a
# The Kineto device properties lack the block-slot count: the architecture's is used.
assert a["limits"] == "CC defaults", a
assert a["grid_limited_pct"] == 6.25 and a["source_pct"] == 6.25, a
assert a["waves"] == 0.125 and a["tail_pct"] == 12.5, a
# 32 regs x 1024 threads: 2 blocks by warps and by registers, 64 of 64 warps; one block
# in the grid fills 1 of 132 x 2 slots: 32 / (132 x 64) = 0.3788 %, shown rounded: 0.38.
s = g["small_k"]
assert s["occupancy_pct"] == 100 and s["limiter"] == "warps+registers", s
assert s["grid_limited_pct"] == 0.38, s
assert s["source_pct"] is None, s
PY
done
exit 0
