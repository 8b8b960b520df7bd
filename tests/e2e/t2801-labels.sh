#!/bin/sh
# The labelled corpus (tests/anchors/labels.tsv): for every anchor trace, what a
# careful engineer concludes from the file itself (steps, main idle cause,
# communication, devices with work, what bounds the step, findings that must
# and must not appear),
# checked against `gpuprof report --format json`. A label marked pending is
# work in progress elsewhere: it is printed (and printed again once it
# passes, to be flipped) but does not fail the suite; any other label that
# does not hold fails it. Every anchor under the anchors folder must have labels.
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto/hta kineto/tracelens nsys nsys-synthetic
labels=$TOP/tests/anchors/labels.tsv
[ -f "$labels" ] || fail "no $labels"

# Every trace file there has labels, and every labelled file exists.
(cd "$ANCHORS" && find kineto/hta kineto/tracelens nsys nsys-synthetic -type f \
	\( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) | LC_ALL=C sort) > files
grep -v '^#' "$labels" | cut -f1 | LC_ALL=C sort -u > labelled
cmp -s files labelled || { diff files labelled; fail "anchors and labels differ"; }

mkdir -p json
while read -r f; do
	out=json/$(echo "$f" | tr '/' '_').json
	"$GPUPROF" report --format json "$ANCHORS/$f" > "$out" 2> err ||
		fail "report on $f: $(cat err)"
done < files

python3 - "$labels" json <<'PY' || fail "labels"
import json, os, re, sys

labels, jdir = sys.argv[1], sys.argv[2]
PYFRAME = re.compile(r"\.py\(\d+\)|^<built-in|^<frozen|^<string>")

def report(anchor):
    with open(os.path.join(jdir, anchor.replace("/", "_") + ".json")) as f:
        return json.load(f)

def steps_kind(d):
    if d["step_source"] == "training-loop":
        return "training-loop"
    if d["step_source"] not in ("nvtx", "repeating-range"):
        return "none"
    names = [s["name"] for s in d["steps"]]
    if names and all(re.fullmatch(r"ProfilerStep#\d+", n) for n in names):
        return "profiler-step"
    if any(PYFRAME.search(n) for n in names):
        return "python-frames"
    return "user-ranges"

def idle_findings(d):
    return [f for f in d["findings"] if f["category"] in ("idle", "launch-bound", "profiler-overhead")]

def matches(f, spec):
    cat, _, cause = spec.partition(":")
    return f["category"] == cat and (not cause or f["cause"] == cause)

def check(d, label, expect):
    """(ok, what gpuprof says)"""
    if label == "steps":
        got = steps_kind(d)
        return got in expect.split("|"), got
    if label == "idle":
        idle = idle_findings(d)
        got = ",".join(f"{f['cause']}/{f['confidence']}" for f in idle) or "none-material"
        if expect == "none-material":
            return not idle, got
        if expect == "unknown":
            return all(f["confidence"] == "low" for f in idle), got
        return bool(idle) and idle[0]["cause"] in expect.split("|"), got
    if label == "comm":
        has = d["communication_summary"]["present"]
        return has == (expect == "yes"), "yes" if has else "no"
    if label == "verdict":
        got = d["bound"]["bound"]
        return got in expect.split("|"), got
    if label == "devices":
        return len(d["devices"]) == int(expect), str(len(d["devices"]))
    got = ",".join(f["category"] + (":" + f["cause"] if f["cause"] else "") for f in d["findings"])
    if label == "must":
        return all(any(matches(f, s) for f in d["findings"]) for s in expect.split(",")), got
    if label == "present":
        allf = d["findings"] + d["findings_summary"].get("minor", [])
        got = ",".join(f["category"] + (":" + f["cause"] if f["cause"] else "") for f in allf)
        return all(any(matches(f, s) for f in allf) for s in expect.split(",")), got
    if label == "mustnot":
        if expect == "any":
            return not d["findings"], got or "-"
        return not any(matches(f, s) for f in d["findings"] for s in expect.split(",")), got or "-"
    raise SystemExit(f"unknown label {label}")

bad = pending = flipped = passed = 0
by_anchor = {}
for line in open(labels):
    if line.startswith("#") or not line.strip():
        continue
    anchor, label, expect, status, reason = line.rstrip("\n").split("\t")
    ok, got = check(report(anchor), label, expect)
    st = by_anchor.setdefault(anchor, [0, 0, 0])
    if status.startswith("pending"):
        if ok:
            flipped += 1
            print(f"passes now, mark ok: {anchor} {label}={expect}")
        else:
            pending += 1
            st[1] += 1
            print(f"pending: {anchor} {label}={expect} (gpuprof: {got}) - {status[8:].strip()}")
    elif ok:
        passed += 1
        st[0] += 1
    else:
        bad += 1
        st[2] += 1
        print(f"WRONG: {anchor} {label}={expect} but gpuprof says {got} ({reason})")
for a, (p, q, w) in sorted(by_anchor.items()):
    print(f"  {a}: {p} pass, {q} pending, {w} wrong")
print(f"labels: {passed} pass, {pending} pending, {flipped} pending but passing, {bad} wrong")
sys.exit(1 if bad else 0)
PY
