#!/bin/sh
# gpuprof gaps on a generated two-device training loop with data-loader
# gaps: golden output in all four formats, and the sums the JSON must obey.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 4 --kernels 24 --copies 2 --devices 2 --gap-ns 3000000 --all-kinds \
	-o a.gpz >/dev/null || fail "tracegen"

expect_rc 0 "$GPUPROF" gaps --per-step --min-gap 5us a.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2201 out

expect_rc 0 "$GPUPROF" gaps --format json --per-step --min-gap 5us a.gpz
golden t2201-json out
expect_rc 0 "$GPUPROF" gaps --format csv --per-step --min-gap 5us a.gpz
golden t2201-csv out
expect_rc 0 "$GPUPROF" gaps --format markdown --per-step --min-gap 5us a.gpz
golden t2201-md out

# Every gap listed: the numbers add up to the nanosecond.
expect_rc 0 "$GPUPROF" gaps --format json --per-step --min-gap 0 --top all a.gpz
python3 - <<'PY' || fail "gaps JSON does not add up"
import json
d = json.load(open("out"))
t = d["totals"]
assert t["busy_ns"] + t["idle_ns"] == t["window_ns"], t
assert sum(x["window_ns"] for x in d["devices"]) == t["window_ns"]
assert sum(x["idle_ns"] for x in d["devices"]) == t["idle_ns"]
assert sum(x["idle_ns"] for x in d["causes"]) == t["idle_ns"]
assert sum(x["gaps"] for x in d["causes"]) == t["gaps"]
assert sum(x["idle_ns"] for x in d["histogram"]) == t["idle_ns"]
gaps = d["gaps"]
assert len(gaps) == t["gaps"] == t["listed_gaps"], (len(gaps), t)
assert sum(g["length_ns"] for g in gaps) == t["idle_ns"]
lens = [g["length_ns"] for g in gaps]
assert lens == sorted(lens, reverse=True)
assert all(0 < g["cause_time_ns"] <= g["length_ns"] for g in gaps)
# Per-step stretches partition each device window, the last step included.
for dev in d["devices"]:
    rows = [s for s in d["steps"] if s["device"] == dev["device"]]
    assert sum(s["window_ns"] for s in rows) == dev["window_ns"]
    assert sum(s["idle_ns"] for s in rows) == dev["idle_ns"]
    assert [s["step"] for s in rows] == ["ProfilerStep#%d" % i for i in range(4)], rows
# Each data-loader gap is explained by exactly the 3 ms range.
dl = [g for g in gaps if g["cause"] == "data-loading"]
assert dl and all(g["cause_time_ns"] == 3000000 for g in dl)
assert all("DataLoader.__next__" in g["evidence"] for g in dl)
PY
exit 0
