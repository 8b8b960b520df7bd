#!/bin/sh
# The job report on real traces nobody here generated: every anchor as one rank
# of one job (unrelated programs, GPUs and tensor sizes) is refused as not one
# run, and with --allow-unrelated analysed, and no straggler or slow GPU is
# claimed from kernels that merely share a name; the two ranks of HTA's
# trace_filter job give "unknown" for both (two sampled ranks: their
# communication kernels, matched by order per stream without sequence
# numbers, end far apart, so nothing is claimed).
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto/hta nsys
find "$ANCHORS" \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite' \) | sort >all
[ "$(wc -l <all)" -ge 20 ] || fail "only $(wc -l <all) anchors"
set -- $(anchor_sweep <all)
expect_rc 1 "$GPUPROF" report --job --format json "$@"
grep -q "are not one run: .*; give --allow-unrelated to analyse them together$" err ||
	fail "unrelated anchors: $(cat err)"
expect_rc 0 "$GPUPROF" report --job --allow-unrelated --format json "$@"
cp out all.json
F=$ANCHORS/kineto/hta/trace_filter
expect_rc 0 "$GPUPROF" report --job --format json "$F/sampled_rank-0.json.gz" "$F/sampled_rank-1.json.gz"
cp out pair.json
python3 - "$#" <<'PY' || fail "verdicts"
import json, sys
a = json.load(open("all.json")); p = json.load(open("pair.json"))
n = int(sys.argv[1])
assert a["traces"] == n and a["analysed"] == n and a["failed"] == [], (a["traces"], a["failed"])
assert a["straggler"]["verdict"] != "found", a["straggler"]
assert a["slow_gpus"]["verdict"] != "found", a["slow_gpus"]
assert p["analysed"] == 2 and [r["rank"] for r in p["ranks"]] == [0, 1], p["ranks"]
assert p["straggler"]["verdict"] == "unknown" and p["slow_gpus"]["verdict"] == "unknown", p
assert [s["step"] for s in p["steps"]] == [551, 552] and p["steps"][0]["ranks"] == 2, p["steps"]
assert p["skew"]["matched"] == 0 and p["skew"]["clocks_agree"] is False, p["skew"]
assert p["straggler"]["why"].startswith("the clocks disagree"), p["straggler"]
PY
exit 0
