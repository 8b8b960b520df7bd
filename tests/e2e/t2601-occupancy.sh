#!/bin/sh
# gpuprof occupancy on a generated two-device training loop: golden output
# in every format, and the JSON obeys its own arithmetic (occupancy =
# blocks x warps per block / max warps; launches and time add up; sorted).
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 8 --copies 1 --devices 2 -o a.gpz >/dev/null ||
	fail "tracegen"

expect_rc 0 "$GPUPROF" occupancy --top 8 a.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2601 out
expect_rc 0 "$GPUPROF" occupancy --format csv --top 8 a.gpz
golden t2601-csv out
expect_rc 0 "$GPUPROF" occupancy --format markdown --top 8 a.gpz
golden t2601-md out

expect_rc 0 "$GPUPROF" occupancy --format json --top all a.gpz
golden t2601-json out
expect_rc 0 "$GPUPROF" stats --report cuda_gpu_kern_sum --format json a.gpz
cp out kern.json
expect_rc 0 "$GPUPROF" occupancy --format json --top all a.gpz
python3 - <<'PY' || fail "occupancy JSON does not add up"
import json
d = json.load(open("out"))
k = json.load(open("kern.json"))["reports"][0]["rows"]
launches = sum(r["instances"] for r in k)
assert d["launches"] == launches == sum(g["launches"] for g in d["kernels"]), d["launches"]
assert d["gpu_time_ns"] == sum(r["total_time_ns"] for r in k) == sum(g["gpu_time_ns"] for g in d["kernels"])
times = [g["gpu_time_ns"] for g in d["kernels"]]
assert times == sorted(times, reverse=True)
for g in d["kernels"]:
    # H200 in the generator: 64 warps per SM
    assert abs(g["warps_per_sm"] * 100 / 64 - g["occupancy_pct"]) < 0.01, g
    assert g["grid_limited_pct"] <= g["occupancy_pct"] + 1e-9, g
    assert 0 < g["tail_pct"] <= 100, g
assert sum(s["kernels"] for s in d["steps"]) == launches
w = sum(g["occupancy_pct"] * g["gpu_time_ns"] for g in d["kernels"]) / d["gpu_time_ns"]
assert abs(w - d["weighted_occupancy_pct"]) < 0.011, (w, d["weighted_occupancy_pct"])
PY
