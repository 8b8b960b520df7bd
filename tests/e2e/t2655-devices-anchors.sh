#!/bin/sh
# gpuprof devices and the device each real trace is measured against: every
# row of the peak table with its units and source document, and the anchors'
# GPUs (Volta, an A100 under a board name, AMD Instinct under a vague or empty
# name, a Pascal part the table lacks) matched or named with the options that
# supply their peaks.
. "$TOP/tests/e2e/lib.sh"

expect_rc 0 "$GPUPROF" devices --format json
python3 - <<'PY' || fail "device table"
import json
j = json.load(open("out"))
assert j["schema"] == "gpuprof-devices/2", j["schema"]
d = j["devices"]
keys = set()
for r in d:
    assert r["key"] not in keys, r["key"]
    keys.add(r["key"])
    src = r["source"]
    assert src.startswith(("NVIDIA ", "AMD ")) or r["verify"] == "yes", r
    assert any(w in src for w in ("datasheet", "whitepaper", "technical brief",
                                  "specifications")) or r["verify"] == "yes", r
    if r["verify"] == "yes":
        assert r["note"], r
    for col in ("fp64_tflop_per_s", "fp64_tc_tflop_per_s", "tf32_tflop_per_s", "bf16_fp16_tflop_per_s", "fp8_tflop_per_s", "int8_tops", "fp4_tflop_per_s"):
        v = r[col]
        assert v is None or v == "" or 0 < float(v) < 1e5, (r["key"], col, v)
    assert 100 <= float(r["memory_gb_per_s"]) <= 20000, r
# the parts the table must cover
want = ["v100_sxm2_16", "v100_sxm2_32", "v100_pcie_16", "v100_pcie_32", "t4", "a2", "a10",
        "a10g", "a16", "a30", "a40", "a100_sxm_40", "a100_sxm_80", "a100_pcie_40",
        "a100_pcie_80", "l4", "l40", "l40s", "h100_pcie", "h100_sxm", "h100_nvl", "h800_sxm",
        "h800_pcie", "h20", "gh200_96", "gh200_144", "h200_sxm", "h200_nvl", "b100", "b200",
        "gb200", "b300", "gb300", "rtx6000_ada", "rtx_a6000", "rtx2080ti", "rtx3090",
        "rtx4090", "rtx5090", "mi100", "mi210", "mi250", "mi250x", "mi300a", "mi300x",
        "mi325x", "mi355x"]
missing = [k for k in want if k not in keys]
assert not missing, missing
PY

# One trace per case; each must be there in CI.
K=kineto/hta
need_anchors "$K/trace_diff/test/test.json.gz" "$K/critical_path/simple_add" \
	"$K/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz" \
	"$K/with_gpu_user_annotation/step_based_trace_2543932.json.gz" \
	"kineto/tracelens/vllm_decode_full/graph_execution.json.gz" \
	"kineto/tracelens/mi210_gpu_only/gpu_only_trace.json.gz"
device() {
	expect_rc 0 "$GPUPROF" mfu --format csv "$ANCHORS/$1"
	grep '^device,' out | head -1
}
case "$(device "$K/trace_diff/test/test.json.gz")" in
'device,V100 SXM2 16GB (table)') ;;
*) fail "V100: $(grep '^device' out)" ;;
esac
grep -q '^peaks from,"NVIDIA V100 Tensor Core GPU datasheet' out || fail "V100 source: $(cat out)"
# "NVIDIA A100-PG509-200": 108 SMs and 40 GB pick the SXM4 40GB among the A100 rows
case "$(device "$K/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz")" in
'device,A100 SXM4 40GB (table)') ;;
*) fail "A100 board name: $(grep '^device' out)" ;;
esac
# "AMD Radeon Graphics" at 9.0 with 104 CUs and 64 GB: MI210 and an MI250 GCD,
# both named, their peaks the same
[ "$(device "$K/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz")" = \
	'device,"Instinct MI210 64GB (table, matched by CC and SMs)"' ] ||
	fail "vague AMD name: $(grep '^device' out)"
grep -q '^name in the trace,AMD Radeon Graphics$' out || fail "recorded name: $(cat out)"
grep -q '^"same CC, SMs and memory as",Instinct MI250 (per GCD)$' out || fail "other part: $(cat out)"
grep -q '^peak bf16 (TFLOP/s per GPU),181$' out || fail "MI250 GCD peak: $(cat out)"
grep -q 'disputed' out && fail "same peaks said to be disputed: $(grep '^device' out)"
# no name at all: 9.4 with 304 CUs and 192 GB is an MI300X
[ "$(device "kineto/tracelens/vllm_decode_full/graph_execution.json.gz")" = \
	'device,"Instinct MI300X 192GB (table, matched by CC and SMs)"' ] ||
	fail "unnamed MI300X: $(grep '^device' out)"
grep -q '^name in the trace,(none)$' out || fail "no recorded name: $(cat out)"
[ "$(device "kineto/tracelens/mi210_gpu_only/gpu_only_trace.json.gz")" = \
	'device,Instinct MI210 64GB (table)' ] || fail "MI210: $(grep '^device' out)"
# Pascal: not in the table, and no clock in a PyTorch trace: named, with the options
[ "$(device "$K/with_gpu_user_annotation/step_based_trace_2543932.json.gz")" = \
	'device,"Quadro GP100 (not in the table: give --device or --peak-tflops, --peak-bw)"' ] ||
	fail "unknown part: $(grep '^device' out)"
# ... and the options do supply them
expect_rc 0 "$GPUPROF" mfu --format csv --peak-tflops 18.7 --peak-bw 717 \
	"$ANCHORS/$K/with_gpu_user_annotation/step_based_trace_2543932.json.gz"
grep -q '^peak bf16 (TFLOP/s per GPU),18.7$' out || fail "--peak-tflops: $(cat out)"
grep -q '^device,"Quadro GP100 (unknown, overridden)"$' out || fail "overridden: $(grep '^device' out)"
exit 0
