#!/bin/sh
# gpuprof report on every Kineto anchor: steps are ProfilerStep#N ranges,
# annotations that repeat around GPU work or iterations between the training
# loop's annotations, never Python frames or CPU ops,
# and every step found without ProfilerStep#N holds GPU work; without steps
# the headline says so and suggests --step. Checked against the files
# themselves (their categories), never against their names. A step's busy %
# is per device and never over 100 %.
. "$TOP/tests/e2e/lib.sh"
need_anchors kineto/hta kineto/tracelens
command -v python3 >/dev/null || exit 77

for f in "$ANCHORS"/kineto/hta/*/*.json* "$ANCHORS"/kineto/hta/*/*/*.json* \
	"$ANCHORS"/kineto/tracelens/*/*.json*; do
	[ -e "$f" ] || continue
	expect_rc 0 "$GPUPROF" report --format json "$f"
	mv out json
	expect_rc 0 "$GPUPROF" report "$f"
	python3 - "$f" <<'PY' || fail "$f"
import gzip, json, re, sys
path = sys.argv[1]
cats = None
def categories():
    # The file's categories by event name, read once and only where a step needs them.
    global cats
    if cats is None:
        raw = (gzip.open if path.endswith(".gz") else open)(path, "rt").read()
        d = json.loads(raw)
        ev = d["traceEvents"] if isinstance(d, dict) else d
        cats = {}
        for e in ev:
            if e.get("ph") == "X" and "name" in e:
                cats.setdefault(e["name"], set()).add(e.get("cat"))
    return cats
r = json.load(open("json"))
text = open("out").read()
src = r["step_source"]
steps = r.get("steps", [])
if src == "whole-trace":
    assert "No steps were found" in text and "--step REGEX" in text, text[:400]
else:
    assert steps, src
for s in steps:
    name = s["name"]
    # Busy % is per device and never over 100 % (GPU work that runs past the
    # step's CPU range, or on several devices, widens the basis instead).
    assert s["busy_pct"] is None or s["busy_pct"] <= 100.0, s
    if src == "repeating-range":
        assert s["gpu_ops"] > 0, s
        c = categories().get(name, set())
        assert c and c <= {"user_annotation"}, (name, c)
    if src == "nvtx":
        assert name.startswith("ProfilerStep#"), name
    if src == "training-loop":
        assert s["gpu_ops"] > 0, s
        assert re.search(r"(?i)dataloader|zero_grad|optimizer[._]step", name), name
        assert categories().get(name, set()) & {"user_annotation"}, (name, cats.get(name))
PY
done

# nsys exports too: no step is busier than 100 % per device.
for f in "$ANCHORS"/nsys/*.sqlite "$ANCHORS"/nsys-synthetic/*.sqlite; do
	[ -e "$f" ] || continue
	expect_rc 0 "$GPUPROF" report --format json "$f"
	python3 -c '
import json, sys
for s in json.load(open(sys.argv[1])).get("steps", []):
    assert s["busy_pct"] is None or s["busy_pct"] <= 100.0, s
' out || fail "$f: a step over 100 % busy"
done

# A bad data-loader pattern is an error naming the option and the reason.
f=$(ls "$ANCHORS"/kineto/hta/trace_diff/test/*.json* | head -n 1)
expect_rc 2 "$GPUPROF" report --data-loader '(' "$f"
grep -q "data-loader pattern '('" err || fail "bad --data-loader: $(cat err)"
grep -q "missing closing parenthesis" err || fail "no reason: $(cat err)"
exit 0
