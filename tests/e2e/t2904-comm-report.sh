#!/bin/sh
# gpuprof report shows the Communication sections when the traces hold
# NCCL operations (text, JSON), with the same numbers as gpuprof comm.
. "$TOP/tests/e2e/lib.sh"

mkdir g
"$TRACEGEN" --nccl --ranks 2 --straggler 0 --steps 3 -o 'g/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" report g
grep -q '^Communication$' out || fail "no Communication section"
grep -q '^Exposed communication$' out || fail "no exposed section"
expect_rc 0 "$GPUPROF" report --format json g
python3 - <<'PY' || fail "report JSON"
import json
d = json.load(open("out"))
c = d["communication"]
assert len(c) == 1 and c[0]["collective"] == "AllReduce" and c[0]["count"] == 6, c
e = d["exposed_communication"]
assert [x["step"] for x in e] == ["all", "all"], e
PY
"$TRACEGEN" --steps 2 --kernels 5 -o plain.gpz >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" report plain.gpz
grep -q '^Communication$' out && fail "Communication section without NCCL operations"
exit 0
