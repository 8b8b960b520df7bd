#!/bin/sh
# Occupancy on real PyTorch profiler traces (the anchors beside the
# checkout): every kernel launch is counted once, the traces' own device
# properties give known occupancy, and our grid-limited occupancy matches
# the estimate the PyTorch profiler wrote into the trace, group by group.
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto/hta
anchors=$ANCHORS
n=0
for f in "$anchors/kineto/hta/negative_queue_length_values_check/rank0.json.gz" \
	"$anchors/kineto/hta/nccl_parser_config/nccl_data.json.gz" \
	"$anchors/kineto/hta/trace_diff/test/test.json.gz"; do
	have_anchors "${f#"$anchors"/}" || continue
	n=$((n + 1))
	expect_rc 0 "$GPUPROF" stats --report cuda_gpu_kern_sum --format json "$f"
	cp out kern.json
	expect_rc 0 "$GPUPROF" occupancy --format json --top all --no-whatif "$f"
	python3 - "$f" <<'PY' || fail "occupancy of $f"
import json, sys
d = json.load(open("out"))
k = json.load(open("kern.json"))["reports"][0]["rows"]
assert d["launches"] == sum(r["instances"] for r in k) > 0
assert d["gpu_time_ns"] == sum(r["total_time_ns"] for r in k)
n_src = [0]
known = [g for g in d["kernels"] if g["occupancy_pct"] is not None]
assert known and d["weighted_occupancy_pct"] is not None, sys.argv[1]
for g in known:
    assert 0 <= g["occupancy_pct"] <= 100, g
    assert g["grid_limited_pct"] is None or g["grid_limited_pct"] <= g["occupancy_pct"], g
    # Kineto's own "est. achieved occupancy %" is the grid-limited occupancy (its threads
    # count whole warps for these block sizes), rounded to a whole percent.
    if g["source_pct"] is not None and g["grid_limited_pct"] is not None:
        assert abs(g["source_pct"] - g["grid_limited_pct"]) < 1, g
        n_src[0] += 1
assert n_src[0] > 0, "no kernel with the source's estimate"
print("groups checked against the source's estimate:", n_src[0], file=sys.stderr)
PY
done

# An nsys export with GPU information (TARGET_INFO_GPU): an A100-SXM4-40GB running saxpy
# with 512-thread blocks of 26 registers: 4 blocks (64 warps), warps and registers tie.
db=$anchors/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
if have_anchors nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite; then
	n=$((n + 1))
	expect_rc 0 "$GPUPROF" occupancy --format csv --no-whatif "$db"
	grep -qF '"saxpy(double *, double *, double *, double, int)",0,5,88573480,2x1x1,512x1x1,26,0,4,64,100.00,warps+registers,recorded,0.46,' out ||
		fail "saxpy occupancy: $(cat out)"
	expect_rc 0 "$GPUPROF" mfu --format csv --flops-per-step 1e12 "$db"
	grep -q '^device,A100 SXM4 40GB (table)$' out || fail "A100 not matched: $(head -3 out)"
	grep -q '^peak bf16 (TFLOP/s per GPU),312$' out || fail "A100 peak"
fi

# An export without its device table (TARGET_INFO_GPU): occupancy unknown, until the GPU is
# named with --gpu (occupancy) or --device (report); an unknown name is a usage error.
db=$anchors/nsys/mfu_2gpu_before.sqlite
if have_anchors nsys/mfu_2gpu_before.sqlite; then
	n=$((n + 1))
	expect_rc 0 "$GPUPROF" occupancy --no-whatif "$db"
	grep -q 'theoretical occupancy unknown weighted' out || fail "no table: $(head -1 out)"
	expect_rc 0 "$GPUPROF" occupancy --no-whatif --gpu h100_sxm "$db"
	grep -q 'theoretical occupancy [0-9.]*% weighted by GPU time\.$' out ||
		fail "--gpu: $(head -1 out)"
	grep -q 'without a known occupancy' out && fail "--gpu left launches unknown: $(head -1 out)"
	expect_rc 2 "$GPUPROF" occupancy --gpu no-such-gpu "$db"
	grep -q "unknown device 'no-such-gpu'" err || fail "bad --gpu: $(cat err)"
	# --device NAME is the spelling of every command; --gpu NAME (above) the earlier one.
	expect_rc 0 "$GPUPROF" occupancy --no-whatif --device h100_sxm "$db"
	expect_rc 2 "$GPUPROF" occupancy --device no-such-gpu "$db"
	grep -q "unknown device 'no-such-gpu'" err || fail "bad --device: $(cat err)"
	expect_rc 0 "$GPUPROF" report --format json --device h100_sxm "$db"
	python3 -c '
import json, sys
d = json.load(open("out"))
s = json.dumps(d)
assert "unknown device" not in s, "report --device left the occupancy unknown"
' || fail "report --device"
fi
[ "$n" -gt 0 ] || no_anchors "kineto/hta and nsys traces"
exit 0
