#!/bin/sh
# gpuprof flame --format speedscope: sampled and evented files checked
# against the required fields and rules of speedscope's file format, and
# against the folded stacks of the same trace.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 7 --steps 3 --kernels 10 --copies 1 --devices 2 --streams 3 --all-kinds \
	-o a.gpz >/dev/null || fail "tracegen"
expect_rc 0 "$GPUPROF" flame a.gpz
mv out a.folded
expect_rc 0 "$GPUPROF" flame -o sampled.json a.gpz
expect_rc 0 "$GPUPROF" flame --format speedscope --speedscope evented a.gpz
mv out evented.json
expect_rc 0 "$GPUPROF" flame --api --format speedscope a.gpz
mv out api.json
expect_rc 2 "$GPUPROF" flame --format speedscope --diff a.gpz -- a.gpz

cat >check.py <<'PY'
import json, sys

UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}

def check(path):
    d = json.load(open(path))
    assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    frames = d["shared"]["frames"]
    assert isinstance(frames, list) and frames
    for f in frames:
        assert isinstance(f["name"], str)
    profiles = d["profiles"]
    assert isinstance(profiles, list) and profiles
    assert 0 <= d.get("activeProfileIndex", 0) < len(profiles)
    assert isinstance(d.get("exporter", ""), str) and isinstance(d.get("name", ""), str)
    for p in profiles:
        assert p["type"] in ("sampled", "evented")
        assert isinstance(p["name"], str) and p["unit"] in UNITS
        assert isinstance(p["startValue"], int) and isinstance(p["endValue"], int)
        assert p["startValue"] <= p["endValue"]
        if p["type"] == "sampled":
            assert len(p["samples"]) == len(p["weights"])
            for s in p["samples"]:
                assert s and all(isinstance(i, int) and 0 <= i < len(frames) for i in s)
            assert all(isinstance(w, int) and w >= 0 for w in p["weights"])
        else:
            stack, last = [], p["startValue"]
            for e in p["events"]:
                assert e["type"] in ("O", "C")
                assert 0 <= e["frame"] < len(frames)
                assert e["at"] >= last, ("time went back", e, last)
                last = e["at"]
                if e["type"] == "O":
                    stack.append(e["frame"])
                else:
                    assert stack and stack[-1] == e["frame"], ("unbalanced close", e)
                    stack.pop()
            assert not stack, "events left open"
            assert last <= p["endValue"]
    return d

def folded(path):
    out = []
    for line in open(path):
        st, c = line.rsplit(" ", 1)
        out.append((st, int(c)))
    return out

want = folded(sys.argv[2])
d = check(sys.argv[1])
names = [f["name"] for f in d["shared"]["frames"]]
if sys.argv[3] == "sampled":
    (p,) = d["profiles"]
    got = [(";".join(names[i] for i in s), w) for s, w in zip(p["samples"], p["weights"])]
    assert got == want, (got[:3], want[:3])
    assert p["endValue"] == sum(c for _, c in want)
else:
    # Each op's stack is open exactly while it runs: leaf time adds up to GPU time.
    leaf = 0
    for p in d["profiles"]:
        start, prev = None, None
        for e in p["events"]:
            if e["type"] == "O":
                start = e["at"]
            elif prev == "O":  # a close right after an open ends a leaf
                leaf += e["at"] - start
            prev = e["type"]
    assert leaf == sum(c for _, c in want), (leaf, sum(c for _, c in want))
PY
python3 check.py sampled.json a.folded sampled || fail "sampled speedscope"
python3 check.py evented.json a.folded evented || fail "evented speedscope"
expect_rc 0 "$GPUPROF" flame --api a.gpz
mv out api.folded
python3 check.py api.json api.folded sampled || fail "API speedscope"
exit 0
