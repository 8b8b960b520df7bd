#!/bin/sh
# Without a straggler the last arrival is the highest rank (10 us apart) and
# the skew is exactly (n-1) * 10 us; without NCCL records (kernels known by
# name only) the exposed times are the same and no operation is matched.
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
assert a["summary"]["straggler_rank"] == 2 and a["summary"]["skew_max_ns"] == 20000, a["summary"]
assert a["summary"]["by_record"] == 6 and a["summary"]["by_name"] == 0, a["summary"]
assert b["summary"]["ops"] == 0 and b["summary"]["by_name"] == 6 and b["summary"]["by_record"] == 0, b["summary"]
assert b["summary"]["straggler_rank"] is None and b["collectives"] == [] and b["ranks"] == [], b
ea = [(x["Process"], x["Step"], x["Exposed (ns)"]) for x in a["exposed"]]
eb = [(x["Process"], x["Step"], x["Exposed (ns)"]) for x in b["exposed"]]
assert ea == eb, (ea, eb)
PY
exit 0
