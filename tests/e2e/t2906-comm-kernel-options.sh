#!/bin/sh
# --comm-kernel on every command that tells communication apart (report,
# gaps, breakdown, flame, diff, comm): a bad pattern is a usage error naming
# it; a good one makes more kernels communication in the report, breakdown
# and flame graph alike (one classification).
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 11 --steps 4 --kernels 30 --copies 2 --streams 2 -o run.gpz >/dev/null ||
	fail tracegen

for cmd in report gaps breakdown flame comm; do
	expect_rc 2 "$GPUPROF" $cmd --comm-kernel '(' run.gpz
	grep -q "'('" err || fail "$cmd: the error does not name the pattern: $(cat err)"
done
expect_rc 2 "$GPUPROF" diff --comm-kernel '(' run.gpz -- run.gpz
grep -q "'('" err || fail "diff: the error does not name the pattern: $(cat err)"

# A kernel family the built-in rules do not call communication.
rule='(?i)gemm'
expect_rc 0 "$GPUPROF" report --format json run.gpz
cp out plain.json
expect_rc 0 "$GPUPROF" report --format json --comm-kernel "$rule" run.gpz
cp out ruled.json
expect_rc 0 "$GPUPROF" breakdown --format json --table types run.gpz
cp out bd-plain.json
expect_rc 0 "$GPUPROF" breakdown --format json --table types --comm-kernel "$rule" run.gpz
cp out bd-ruled.json
expect_rc 0 "$GPUPROF" flame --format folded run.gpz
cp out plain.folded
expect_rc 0 "$GPUPROF" flame --format svg --comm-kernel "$rule" run.gpz
cp out ruled.svg
expect_rc 0 "$GPUPROF" flame --format svg run.gpz
cp out plain.svg

python3 - <<'PY' || fail "--comm-kernel is not applied alike"
import json, re
a = json.load(open("plain.json"))["communication_summary"]
b = json.load(open("ruled.json"))["communication_summary"]
assert b["kernels"] > a["kernels"], (a, b)
def comm_us(path):
    rows = json.load(open(path))["types"]
    return sum(r["sum_us"] for r in rows if "COMMUNICATION" in r["kernel_type"])
assert comm_us("bd-ruled.json") > comm_us("bd-plain.json")
# The SVG paints GEMM frames in the communication colour only with the rule.
def gemm_fills(path):
    s = open(path).read()
    return set(re.findall(r'<title>[^<]*gemm[^<]*</title>\s*<rect[^>]*fill="([^"]+)"', s, re.I))
plain, ruled = gemm_fills("plain.svg"), gemm_fills("ruled.svg")
assert plain and ruled and plain != ruled, (plain, ruled)
PY
