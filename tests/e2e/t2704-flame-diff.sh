#!/bin/sh
# gpuprof flame --diff: "stack before after" lines (difffolded.pl's shape),
# each side per step, step numbers merged; the SVG is red where time grew.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 8 --copies 1 -o a.gpz >/dev/null || fail "tracegen a"
"$TRACEGEN" --seed 5 --steps 6 --kernels 16 --copies 1 -o b.gpz >/dev/null || fail "tracegen b"
expect_rc 0 "$GPUPROF" flame --diff a.gpz -- b.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2704 out
mv out ab.folded
expect_rc 0 "$GPUPROF" flame --diff a.gpz -- a.gpz
mv out aa.folded
expect_rc 0 "$GPUPROF" flame --no-ids a.gpz
mv out a.folded
expect_rc 0 "$GPUPROF" flame --no-ids b.gpz
mv out b.folded

python3 - <<'PY' || fail "differential stacks"
import re
def two(path):
    d = {}
    for line in open(path):
        st, b, a = line[:-1].rsplit(" ", 2)
        assert re.fullmatch("[0-9]+", b) and re.fullmatch("[0-9]+", a), line
        assert st not in d
        d[st] = (int(b), int(a))
    return d
def one(path):
    d = {}
    for line in open(path):
        st, c = line[:-1].rsplit(" ", 1)
        st = re.sub(r"ProfilerStep#[0-9]+", "ProfilerStep#*", st)
        d[st] = d.get(st, 0) + int(c)
    return d
ab, aa, a, b = two("ab.folded"), two("aa.folded"), one("a.folded"), one("b.folded")
# The same runs on both sides: nothing changed, every stack per step.
assert all(x == y for x, y in aa.values())
assert set(aa) == set(a)
# Each side is its own stacks divided by its step count, rounded per stack.
assert set(ab) == set(a) | set(b)
for st, (before, after) in ab.items():
    assert abs(before * 3 - a.get(st, 0)) <= 1, st
    assert abs(after * 6 - b.get(st, 0)) <= 3, st
assert "ProfilerStep#*" in next(iter(ab))
# b launches twice the kernels per step: more GPU time per step overall.
assert sum(x[1] for x in ab.values()) > sum(x[0] for x in ab.values())
PY

expect_rc 0 "$GPUPROF" flame -o d.svg --diff a.gpz -- b.gpz
python3 - <<'PY' || fail "differential SVG colours"
import xml.etree.ElementTree as ET, re
ns = {"s": "http://www.w3.org/2000/svg"}
for g in ET.parse("d.svg").getroot().find(".//s:g[@id='frames']", ns):
    t = g.find("s:title", ns).text
    if t.startswith("all ("):
        fill = g.find("s:rect", ns).get("fill")
        r, gg, bb = map(int, re.findall("[0-9]+", fill))
        assert r == 255 and gg == bb and gg < 250, fill  # red: grew
        assert "before" in t and "+" in t, t
        break
else:
    raise SystemExit("no root frame")
PY
exit 0
