#!/bin/sh
# gpuprof report carries the kernel-efficiency sections in every format:
# occupancy and copy bandwidth from the trace alone, utilization with MFU
# options, the roofline with rules; bad options and rule files are refused.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 16 --copies 1 --devices 1 -o a.gpz >/dev/null ||
	fail "tracegen"
cat >roof.rules <<'R'
# 128x128 tiles over K = 4096 in bf16: 2MNK FLOPs, compulsory bytes
pattern="gemm_kernel_128x128" flops="2 * grid * 128 * 128 * 4096" bytes="(grid * 128 * 4096 * 2 + grid * 128 * 128) * 2"
pattern="elementwise|layer_norm" flops="threads" bytes="threads * 12"
R

expect_rc 0 "$GPUPROF" report a.gpz
grep -q '^Theoretical occupancy$' out || fail "no occupancy section"
grep -q '^Copy bandwidth$' out || fail "no copy bandwidth section"
grep -q '^Utilization$' out && fail "utilization without MFU options"

opts="--flops-per-step 5e11 --bytes-per-step 2e8 --roofline roof.rules"
# shellcheck disable=SC2086
expect_rc 0 "$GPUPROF" report $opts a.gpz
for s in 'Theoretical occupancy' 'Utilization' 'Copy bandwidth' 'Roofline'; do
	grep -q "^$s\$" out || fail "text report lacks '$s'"
done
# shellcheck disable=SC2086
expect_rc 0 "$GPUPROF" report --format markdown $opts a.gpz
grep -q '^## Roofline$' out || fail "markdown report lacks the roofline"
# shellcheck disable=SC2086
expect_rc 0 "$GPUPROF" report --format json $opts a.gpz
cp out report.json
# shellcheck disable=SC2086
expect_rc 0 "$GPUPROF" mfu --format json $opts a.gpz
python3 - <<'PY' || fail "report JSON sections"
import json
r = json.load(open("report.json"))
m = json.load(open("out"))
for k in ("occupancy", "utilization", "copy_bandwidth", "roofline"):
    assert r[k], k
assert r["utilization"] == m["utilization"], (r["utilization"], m["utilization"])
assert r["roofline"] == m["roofline"]
u = {x["metric"]: x["value"] for x in r["utilization"]}
assert float(u["MFU, median step (%)"]) > 0
for row in r["roofline"]:
    if row["bound"] in ("memory", "compute"):
        assert abs(row["flop_per_byte"] - row["flops_per_launch"] / row["bytes_per_launch"]) <= 1e-3 * row["flop_per_byte"]
        assert (row["bound"] == "memory") == (row["flop_per_byte"] < row["ridge_flop_per_byte"]), row
PY
# shellcheck disable=SC2086
expect_rc 0 "$GPUPROF" report --format html -o r.html $opts a.gpz
for s in 'Theoretical occupancy' 'Utilization' 'Roofline'; do
	grep -q "$s" r.html || fail "HTML report lacks '$s'"
done

expect_rc 2 "$GPUPROF" report --flops-per-step -5 a.gpz
expect_rc 2 "$GPUPROF" report --peak-tflops nan a.gpz
printf 'pattern=gemm flops="2*(grid" bytes=1\n' >bad.rules
expect_rc 1 "$GPUPROF" report --roofline bad.rules a.gpz
grep -q 'bad.rules:1: bad flops formula' err || fail "rules error: $(cat err)"
expect_rc 1 "$GPUPROF" mfu --roofline missing.rules a.gpz
grep -q 'missing.rules: cannot open' err || fail "missing rules: $(cat err)"
exit 0
