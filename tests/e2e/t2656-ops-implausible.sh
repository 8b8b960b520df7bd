#!/bin/sh
# gpuprof ops checks every operator's achieved FLOP/s and bytes/s against the
# device's peak: faster than the peak is an "implausible data" warning naming
# the operator and its model, and never a roofline point over 100 %. MFU and
# MBU from operator shapes state the share of GPU time their models cover,
# with a warning below half. report lists the warning among its own.
. "$TOP/tests/e2e/lib.sh"

K=kineto/hta
need_anchors "$K/trace_diff/control/control.json.gz" "$K/trace_diff/test/test.json.gz"
# the A100 (40 GB by its SMs and memory): elementwise adds of 17.7 MB run above
# its 1555 GB/s (their inputs still in the 40 MB L2 cache)
expect_rc 0 "$GPUPROF" ops --format json "$ANCHORS/$K/trace_diff/control/control.json.gz"
grep -q "^gpuprof: warning: implausible data: [0-9]* operators with given inputs ran faster than A100 SXM4 40GB's peak, left off the roofline; the furthest: aten::[a-z_]* ([a-z]* model, inputs D=" err ||
	fail "no implausible-data warning: $(cat err)"
[ "$(wc -l <err)" -eq 1 ] || fail "stderr: $(cat err)"
python3 - <<'PY' || fail "ops JSON"
import json
j = json.load(open("out"))
assert j["schema"] == "gpuprof-ops/2", j["schema"]
imp = j["implausible"]
assert imp["rows"] >= 1 and imp["gpu_ns"] > 0, imp
assert imp["operator"].startswith("aten::") and imp["model"] in ("unary", "binary", "copy"), imp
assert imp["over"] == "tbps" and imp["achieved"] > imp["peak"] == 1.555, imp
for table in ("by_name", "by_inputs"):
    for r in j[table]:
        v = r.get("roofline_pct")
        assert v in (None, "") or float(v) <= 100.0, (table, r)
PY
# the text summary says it too
expect_rc 0 "$GPUPROF" ops "$ANCHORS/$K/trace_diff/control/control.json.gz"
grep -q '^Warning: implausible data: ' out || fail "text: no warning line"
# report lists the same warning among its warnings, in every format
C="$ANCHORS/$K/trace_diff/control/control.json.gz"
"$GPUPROF" ops "$C" 2>&1 >/dev/null | sed 's/^gpuprof: warning: //' >ops.warn
expect_rc 0 "$GPUPROF" report --format json "$C"
python3 - ops.warn <<'PY' || fail "report JSON: no implausible-data warning"
import json, sys
want = open(sys.argv[1]).read().strip()
assert want.startswith("implausible data: "), want
w = json.load(open("out"))["warnings"]
assert w.count(want) == 1, (want, w)
PY
expect_rc 0 "$GPUPROF" report --format markdown "$C"
sed -n '/^## Warnings/,$p' out | grep -qF -- "- $(cat ops.warn)" || fail "report markdown: no warning"
expect_rc 0 "$GPUPROF" report -o page.html --format html "$C"
grep -q '<li>implausible data: [0-9]* operators with given inputs ran faster than A100' page.html ||
	fail "report HTML: no warning"
expect_rc 0 "$GPUPROF" report "$C"
sed -n '/^Warnings$/,$p' out | grep -q '^  - implausible data: ' || fail "report text: no warning"
# the V100 trace: no operator over the peak once fill_ is costed as a write
expect_rc 0 "$GPUPROF" ops --format json "$ANCHORS/$K/trace_diff/test/test.json.gz"
[ -s err ] && fail "V100: $(cat err)"
python3 -c 'import json; j = json.load(open("out")); assert j["implausible"] is None, j["implausible"]' ||
	fail "V100 implausible"
expect_rc 0 "$GPUPROF" report --format json "$ANCHORS/$K/trace_diff/test/test.json.gz"
grep -q 'implausible data' out && fail "V100: report warns of implausible data"

# coverage: the MI300X ResNet trace's models cover about a third of the compute time
# (convolutions and norms modelled; a third of its GPU ops ran outside any operator)
T=kineto/tracelens
need_anchors "$T/mi300_resnet_act_checkpoint/resnet_act_checkpoint.json.gz" \
	"$T/normalization/normalization_layer_test.json.gz"
expect_rc 0 "$GPUPROF" mfu --format csv "$ANCHORS/$T/mi300_resnet_act_checkpoint/resnet_act_checkpoint.json.gz"
grep -q '^GPU time with a FLOP model (%),3[0-9]\.[0-9][0-9]$' out ||
	fail "FLOP coverage: $(cat out)"
grep -q '^warning,MFU is a lower bound: FLOP models cover 3[0-9]\.[0-9] % of compute time$' out ||
	fail "no coverage warning: $(cat out)"
grep -q '^warning,MBU is a lower bound: byte models cover' out || fail "no MBU warning"
# the normalization test: over 90 % covered, no warning
expect_rc 0 "$GPUPROF" mfu --format csv "$ANCHORS/$T/normalization/normalization_layer_test.json.gz"
grep -q '^GPU time with a FLOP model (%),9[0-9]\.[0-9][0-9]$' out ||
	fail "FLOP coverage: $(cat out)"
grep -q '^warning' out && fail "warning at over 90 %: $(cat out)"
exit 0
