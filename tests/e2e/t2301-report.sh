#!/bin/sh
# gpuprof report: golden text, Markdown and JSON on a generated training
# loop with a slow data loader; the loader stall must be the top idle cause.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 11 --steps 4 --kernels 30 --copies 2 --streams 2 --gap-ns 2500000 \
	-o run.gpz >/dev/null || fail tracegen

expect_rc 0 "$GPUPROF" report run.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2301 out
expect_rc 0 "$GPUPROF" report --format markdown run.gpz
golden t2301-md out
expect_rc 0 "$GPUPROF" report --format json run.gpz
golden t2301-json out

python3 - <<'PY' || fail "report JSON does not hold what it should"
import json
r = json.load(open("out"))
assert r["schema"] == "gpuprof-report/2"
# The generated NCCL kernels make communication present; the idle is material.
assert r["communication_summary"]["present"] and r["communication_summary"]["kernels"] > 0
assert r["gpu"]["idle_material"] is True and r["gpu"]["capture_idle_ns"] == 0
causes = r["idle_by_cause"]
top = max(causes, key=lambda c: c["idle_ns"])
assert top["cause"] == "data-loading", top
# The findings open with the data-loading idle, its bound that cause's idle time
# or, when less, its time on the critical path (the 2.5 ms loads, 7.5 ms).
f = r["findings"][0]
assert (f["category"], f["cause"]) == ("idle", "data-loading"), f
assert f["recoverable_ns"] == min(top["idle_ns"], r["bound"]["path"]["data_loading_ns"]), f
assert f["recoverable_ns"] == 7500000, f
# Low theoretical occupancy on vendor kernels is never material by itself.
assert "low-occupancy" not in [x["category"] for x in r["findings"]], r["findings"]
assert r["findings_summary"]["verdict"] == "material"
assert r["findings_summary"]["basis_ns"] == r["gpu"]["window_ns"]
# Four steps, none dropped, and their GPU ops add up to every op in the trace.
assert [s["step"] for s in r["steps"]] == [0, 1, 2, 3], r["steps"]
ops = sum(s["gpu_ops"] for s in r["steps"])
assert ops == r["traced"]["kernels"] + r["traced"]["copies"] + r["traced"]["memsets"], ops
# Busy + idle = window, exactly.
g = r["gpu"]
assert g["busy_ns"] + g["idle_ns"] == g["window_ns"], g
# Kernel shares add up to 100 % (rounding aside) over the listed rows' total.
assert abs(sum(k["time_pct"] for k in r["kernels"]) - 100) < 1.5 or len(r["kernels"]) == 10
assert r["warnings"] == []
PY

# A directory of ranks: one timeline, one process row per file.
mkdir ranks
"$TRACEGEN" --seed 2 --steps 2 --kernels 10 --ranks 2 -o 'ranks/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" report --format json ranks
python3 -c 'import json; r=json.load(open("out")); assert len(r["processes"]) == 2, r["processes"]' ||
	fail "two ranks not both loaded"

# A file cut short: partial results, warned on stderr and in the report.
head -c $(($(wc -c <run.gpz) / 2)) run.gpz >cut.gpz
expect_rc 0 "$GPUPROF" report cut.gpz
grep -q "cut.gpz: truncated" err || fail "no truncation warning on stderr: $(cat err)"
grep -q "cut.gpz: the file is cut short" out || fail "report does not warn about the cut file"

# Bad input: one line naming the file and the problem, exit 1.
expect_rc 1 "$GPUPROF" report nosuch.gpz
grep -qx "gpuprof: error: nosuch.gpz: cannot open: No such file or directory" err || fail "$(cat err)"
echo junk >junk.gpz
expect_rc 1 "$GPUPROF" report run.gpz junk.gpz
grep -qx "gpuprof: error: junk.gpz: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite file" err || fail "$(cat err)"
python3 - <<'PY'
import struct, zlib
d = bytearray(open("run.gpz", "rb").read())
d[8:12] = struct.pack("<HH", 3, 0)
d[28:32] = struct.pack("<I", zlib.crc32(bytes(d[:28])))
open("v2.gpz", "wb").write(d)
PY
expect_rc 1 "$GPUPROF" report run.gpz v2.gpz
grep -q "v2.gpz: written in trace format 3.0, newer than this gpuprof reads" err || fail "$(cat err)"
mkdir empty
expect_rc 1 "$GPUPROF" report empty
grep -q "no traces in the directory" err || fail "$(cat err)"
expect_rc 2 "$GPUPROF" report --step '([' run.gpz
grep -q "bad step pattern" err || fail "$(cat err)"
expect_rc 2 "$GPUPROF" report --format csv run.gpz
expect_rc 2 "$GPUPROF" report
exit 0
