#!/bin/sh
# gpuprof comm on four generated ranks with a planted straggler (rank 2,
# 400 us late at every AllReduce) and known overlap (tests/tools/gen-nccl.c):
# golden text, JSON, CSV and Markdown, and the known answers checked exactly.
. "$TOP/tests/e2e/lib.sh"

mkdir g
"$TRACEGEN" --nccl --ranks 4 --straggler 2 --steps 4 -o 'g/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" comm g
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2901 out
expect_rc 0 "$GPUPROF" comm --format csv g
golden t2901-csv out
expect_rc 0 "$GPUPROF" comm --format markdown --table ranks g
golden t2901-md out
expect_rc 0 "$GPUPROF" comm --format json g
golden t2901-json out
python3 - <<'PY' || fail "known answers"
import json
d = json.load(open("out"))
s = d["summary"]
assert d["schema"] == "gpuprof-comm/3", d["schema"]
assert s["ops"] == 16 and s["matched"] == 4 and s["straggler_rank"] == 2, s
# rank 2 arrives 400 us after the first, 370 us after rank 3: the straggler's lead
assert s["straggler"] == {"verdict": "found", "margin_ns": 370000}, s
assert s["matched_by"] == "sequence number" and s["clock_check"]["ends_checked"] == 4, s
assert s["clock_check"]["ends_far"] == 0 and s["clock_check"]["clocks_agree"], s
assert s["skew_max_ns"] == 400000 and s["by_record"] == 16 and s["by_name"] == 0, s
c = d["collectives"][0]
# 16 MiB in the fastest rank's 1 ms; busbw = algbw * 2 (n-1)/n, n = 4
assert c["collective"] == "AllReduce" and c["count"] == 16, c
assert abs(c["algbw_gb_per_s"] - 16.78) < 0.006 and abs(c["busbw_gb_per_s"] - 25.17) < 0.006, c
# The generated devices are H100 SXM: NVLink 900 GB/s both ways, 450 per direction.
assert c["peak_gb_per_s"] == 450.0 and abs(c["busbw_of_peak_pct"] - 100 * c["busbw_gb_per_s"] / 450) < 0.06, c
assert s["peak_known"] is True, s
tot = {x["process"]: x for x in d["exposed"] if x["step"] == "all"}
# rank r: comm [a+10us, A+1010us); overlap (90 - 10r) + 300 us per step
for r, comm, ov in ((0, 1400000, 390000), (1, 1390000, 380000), (2, 1000000, 300000), (3, 1370000, 360000)):
    t = tot["rank %d" % r]
    assert t["comm_ns"] == 4 * comm and t["overlapped_ns"] == 4 * ov, t
    assert t["exposed_ns"] == 4 * (comm - ov), t
    steps = [x for x in d["exposed"] if x["process"] == "rank %d" % r and x["step"] != "all"]
    assert len(steps) == 4 and all(x["exposed_ns"] == comm - ov for x in steps), steps
rk = {x["rank"]: x for x in d["ranks"]}
assert rk[2]["last"] == 4 and rk[2]["wait_caused_ns"] == 4 * (400000 + 390000 + 370000), rk
assert rk[0]["waited_ns"] == 4 * 400000 and rk[2]["waited_ns"] == 0, rk
PY
exit 0
