#!/bin/sh
# gpuprof memory on every Kineto anchor: where a trace has PyTorch "[memory]"
# events, the peak of each device equals the largest "Total Allocated" of its
# events (computed here with python3's json, independently of the importer),
# with the same device count; a trace without them says it has none. Under
# GPUPROF_ANCHOR_SWEEP=small only the anchors under 1 MB, as anchor_swept.
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto
command -v python3 >/dev/null 2>&1 || exit 77

python3 - "$ANCHORS/kineto" "$GPUPROF" <<'PY' || fail "memory peaks on the anchors"
import glob, gzip, json, os, subprocess, sys

root, gp = sys.argv[1:3]
files = sorted(glob.glob(os.path.join(root, "**", "*.json*"), recursive=True))
if os.environ.get("GPUPROF_ANCHOR_SWEEP") == "small":  # lib.sh's anchor_swept
    files = [f for f in files if os.path.getsize(f) < 1000000]
with_mem = 0
for f in files:
    op = gzip.open if f.endswith(".gz") else open
    doc = json.load(op(f, "rt"))
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    want = {}
    for e in ev:
        if e.get("name") != "[memory]" or e.get("ph") != "i":
            continue
        a = e.get("args", {})
        t, i = a.get("Device Type", 1), a.get("Device Id", 0)
        name = "cpu" if t == 0 else "%s:%d" % ("hip" if t == 6 else "cuda", max(i, 0))
        want[name] = max(want.get(name, 0), a.get("Total Allocated", 0))
    p = subprocess.run([gp, "memory", "--format", "json", "--table", "devices", f],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (f, p.returncode, p.stderr))
    got = json.loads(p.stdout)
    have = {d["device"]: d["peak_allocated_bytes"] for d in got.get("devices", [])}
    if have != want:
        sys.exit("%s: peaks %s, the events say %s" % (f, have, want))
    if want:
        with_mem += 1
        print("%s: %s" % (os.path.relpath(f, root), want))
    elif got["devices_with_events"] != 0:
        sys.exit("%s: devices without memory events" % f)
if with_mem < 1:
    sys.exit("no anchor with [memory] events")
PY
exit 0
