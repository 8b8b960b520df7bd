#!/bin/sh
# Ranks and processes sort as numbers, not as text: with 12 ranks the
# tables list 0, 1, 2, ..., 10, 11 (never 0, 1, 10, 11, 2, ...).
. "$TOP/tests/e2e/lib.sh"

mkdir g
"$TRACEGEN" --nccl --ranks 12 --straggler 2 --steps 2 -o 'g/r%r.gpz' >/dev/null || fail tracegen

# A directory loads its files in natural order: every per-process table follows.
expect_rc 0 "$GPUPROF" comm --format json g
mv out dir.json
expect_rc 0 "$GPUPROF" report --format json g
mv out report.json
# Files named in text order (as a shell glob gives them): the ranks table still sorts.
expect_rc 0 "$GPUPROF" comm --format json g/r0.gpz g/r1.gpz g/r10.gpz g/r11.gpz g/r2.gpz \
	g/r3.gpz g/r4.gpz g/r5.gpz g/r6.gpz g/r7.gpz g/r8.gpz g/r9.gpz
mv out args.json
expect_rc 0 "$GPUPROF" comm --table ranks g
mv out ranks.txt

python3 - <<'PY' || fail "ranks not in numeric order"
import json
want = list(range(12))
for f in ("dir.json", "args.json"):
    d = json.load(open(f))
    got = [r["rank"] for r in d["ranks"]]
    assert got == want, (f, got)
d = json.load(open("dir.json"))
procs = []
for r in d["exposed"] if "exposed" in d else d["exposed_communication"]:
    if not procs or procs[-1] != r["process"]:
        procs.append(r["process"])
assert procs == ["rank %d" % i for i in want], procs
r = json.load(open("report.json"))
assert [p["rank"] for p in r["processes"]] == want, r["processes"]
# The text table too.
rows = [l.split()[0] for l in open("ranks.txt") if l[:4].strip().isdigit()]
assert rows == [str(i) for i in want], rows
PY
exit 0
