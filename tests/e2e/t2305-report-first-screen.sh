#!/bin/sh
# gpuprof report: the first screen answers the question. Findings, idle by
# cause and top kernels come first; a step table longer than 10 steps is
# summarised by the distribution and the 5 slowest steps, the whole table
# last; a short one stays near the top; JSON keeps every section as before.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 11 --steps 14 --kernels 30 --copies 2 --streams 2 --gap-ns 2500000 \
	-o long.gpz >/dev/null || fail tracegen
"$TRACEGEN" --seed 11 --steps 4 --kernels 30 --copies 2 --streams 2 --gap-ns 2500000 \
	-o short.gpz >/dev/null || fail tracegen

expect_rc 0 "$GPUPROF" report --format json long.gpz
mv out long.json
for fmt in text markdown; do
	expect_rc 0 "$GPUPROF" report --format $fmt long.gpz
	mv out long.$fmt
	expect_rc 0 "$GPUPROF" report --format $fmt short.gpz
	mv out short.$fmt
done

python3 - <<'PY' || fail "report order or slowest steps wrong"
import json, re
r = json.load(open("long.json"))
# JSON: all steps, no summary-only section.
assert len(r["steps"]) == 14 and "slowest_steps" not in r, r.keys()
walls = sorted(((s["wall_ns"], -s["step"]) for s in r["steps"]), reverse=True)
want_slowest = [str(-w[1]) for w in walls[:5]]

def sections(path, md):
    out = []
    for line in open(path):
        line = line.rstrip("\n")
        if md and line.startswith("## "):
            out.append(line[3:])
        elif not md and line and line[0].isupper() and not line.startswith("GPU busy ") \
                and "|" not in line and "  " not in line and not line.endswith("."):
            out.append(line)
    return out

def table_after(path, title, md):
    lines = open(path).read().split("\n")
    i = lines.index(("## " if md else "") + title)
    rows = []
    for line in lines[i + 2:]:
        if not line.strip():
            if rows:
                break
            continue
        rows.append(line)
    if md:
        return [c.split("|")[1].strip() for c in rows[2:] if c.startswith("|")]
    return [c.split()[0] for c in rows[2:] if not c.startswith("(")]

for fmt, md in (("text", False), ("markdown", True)):
    s = sections("long." + fmt, md)
    first = [x for x in s if x in ("Findings", "GPU idle by cause", "Top kernels by GPU time",
                                   "Step time distribution", "Slowest steps", "What was traced",
                                   "Steps")]
    assert first == ["Findings", "GPU idle by cause", "Top kernels by GPU time",
                     "Step time distribution", "Slowest steps", "What was traced", "Steps"], (fmt, s)
    # The whole table is the last table, before Warnings.
    assert s[-2:] == ["Steps", "Warnings"], (fmt, s)
    got = table_after("long." + fmt, "Slowest steps", md)
    assert got == want_slowest, (fmt, got, want_slowest)
    assert table_after("long." + fmt, "Steps", md) == [str(i) for i in range(14)]
    # A short table: no summary, steps right after the top kernels.
    s = sections("short." + fmt, md)
    assert "Slowest steps" not in s, s
    k = s.index("Top kernels by GPU time")
    assert s[k + 1:k + 3] == ["Steps", "Step time distribution"], (fmt, s)
PY
grep -q '(the 5 slowest of 14 steps' long.text || fail "no note under the slowest steps"
exit 0
