#!/bin/sh
# Without a straggler the last arrival is the highest rank (10 us apart) and
# the skew is exactly (n-1) * 10 us: last every time, but 10 us ahead of the
# next rank is no straggler ("nothing material", as the job report says).
# Without NCCL records (kernels known by name only) the exposed times are the
# same, and the kernels, matched by their order per stream, give the same
# arrivals, waits and verdict; the empty collectives table is one line.
. "$TOP/tests/e2e/lib.sh"

mkdir a b
"$TRACEGEN" --nccl --ranks 3 --steps 2 -o 'a/r%r.gpz' >/dev/null || fail tracegen
"$TRACEGEN" --nccl-names --ranks 3 --steps 2 -o 'b/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" comm --format json a
cp out a.json
expect_rc 0 "$GPUPROF" comm --format json b
cp out b.json
expect_rc 0 "$GPUPROF" comm b
golden t2902 out
python3 - <<'PY' || fail "known answers"
import json
a = json.load(open("a.json")); b = json.load(open("b.json"))
sa, sb = a["summary"], b["summary"]
assert a["schema"] == b["schema"] == "gpuprof-comm/3", a["schema"]
assert sa["straggler_rank"] is None and sa["skew_max_ns"] == 20000, sa
assert sa["straggler"] == {"verdict": "nothing material"} and sa["matched_by"] == "sequence number", sa
assert sa["by_record"] == 6 and sa["by_name"] == 0, sa
assert sb["ops"] == 0 and sb["by_name"] == 6 and sb["by_record"] == 0, sb
assert sb["straggler_rank"] is None and sb["straggler"] == sa["straggler"] and b["collectives"] == [], b
assert sb["matched"] == sa["matched"] == 2 and sb["matched_by"] == "order per stream", sb
assert sb["skew_max_ns"] == 20000 and sb["clock_check"]["clocks_agree"], sb
key = lambda r: (r["rank"], r["matched"], r["last"], r["wait_caused_ns"], r["waited_ns"], r["mean_lateness_ns"])
assert [key(r) for r in a["ranks"]] == [key(r) for r in b["ranks"]], (a["ranks"], b["ranks"])
assert [r["last"] for r in b["ranks"]] == [0, 0, 2], b["ranks"]
ea = [(x["process"], x["step"], x["exposed_ns"]) for x in a["exposed"]]
eb = [(x["process"], x["step"], x["exposed_ns"]) for x in b["exposed"]]
assert ea == eb, (ea, eb)
PY
exit 0
