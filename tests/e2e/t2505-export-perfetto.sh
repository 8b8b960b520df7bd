#!/bin/sh
# gpr_export_perfetto: a generated trace exported as Chrome trace event JSON
# by a small program linked with the libraries, then checked with Python:
# required keys per phase, non-negative durations, matched flow arrows, names
# for every process and thread, the kernel count, exact timestamps.
. "$TOP/tests/e2e/lib.sh"

prog=$BUILD/tests/perfetto-drive # tests/tools/perfetto-drive.c
[ -x "$prog" ] || fail "missing $prog (build first)"

cat >check.py <<'PY'
import json, re, sys
from decimal import Decimal

out, info_path, dump_path = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(out).read()
doc = json.loads(text, parse_float=Decimal)
assert doc["displayTimeUnit"] == "ns", doc.keys()
evs = doc["traceEvents"]
assert evs, "no events"

# Every time is written as a number with exactly three decimals.
for m in re.finditer(r'"(ts|dur)":([^,}]*)', text):
    assert re.fullmatch(r"-?\d+\.\d{3}", m.group(2)), m.group(0)

need = {
    "X": {"name", "cat", "pid", "tid", "ts", "dur"},
    "M": {"name", "pid", "args"},
    "b": {"name", "cat", "id", "pid", "ts"},
    "e": {"name", "cat", "id", "pid", "ts"},
    "i": {"name", "pid", "tid", "ts", "s"},
    "s": {"name", "cat", "id", "pid", "tid", "ts"},
    "f": {"name", "cat", "id", "pid", "tid", "ts", "bp"},
    "C": {"name", "pid", "ts", "args"},
}
procs, threads, used_p, used_t = set(), set(), set(), set()
flows = {"s": {}, "f": {}}
phs = {}
for e in evs:
    ph = e["ph"]
    phs[ph] = phs.get(ph, 0) + 1
    assert ph in need, e
    missing = need[ph] - e.keys()
    assert not missing, (missing, e)
    if ph == "X":
        assert e["dur"] >= 0, e
    if ph == "f":
        assert e["bp"] == "e", e
    if ph in "sf":
        key = (e["cat"], e["id"])
        assert key not in flows[ph], ("duplicate flow", e)
        flows[ph][key] = e
    if ph == "M":
        if e["name"] == "process_name":
            procs.add(e["pid"])
        elif e["name"] == "thread_name":
            threads.add((e["pid"], e["tid"]))
        continue
    used_p.add(e["pid"])
    if "tid" in e:
        used_t.add((e["pid"], e["tid"]))
assert flows["s"].keys() == flows["f"].keys(), "unmatched flows"
assert not used_p - procs, ("unnamed processes", used_p - procs)
assert not used_t - threads, ("unnamed threads", used_t - threads)

# Flows leave an API slice on a CPU thread and land inside the GPU op.
xs = {}
for e in evs:
    if e["ph"] == "X":
        xs.setdefault((e["pid"], e["tid"]), []).append(e)
def inside(e, cats):
    return any(x["cat"] in cats and x["ts"] <= e["ts"] <= x["ts"] + x["dur"]
               for x in xs.get((e["pid"], e["tid"]), []))
for key, s in flows["s"].items():
    assert inside(s, {"cuda_runtime", "cuda_driver"}), ("flow start outside an API", s)
    assert inside(flows["f"][key], {"kernel", "memcpy", "memset"}), ("flow end outside", key)

info = json.loads(open(info_path).read())
nkern = sum(f["records"].get("kernel", 0) for f in info["files"])
kern = [e for e in evs if e["ph"] == "X" and e["cat"] == "kernel"]
assert len(kern) == nkern, (len(kern), nkern)
assert sum(1 for e in evs if e["ph"] == "C") == 2 * len(info["files"])
gpus = [e for e in evs if e["ph"] == "M" and e["name"] == "process_name"
        and e["args"]["name"].startswith("GPU ")]
assert len(gpus) == sum(len(f["devices"]) for f in info["files"]), gpus

if dump_path != "-":
    # One file: times are the recorded ones less the first, to the nanosecond.
    t0 = info["files"][0]["first_ns"]
    byc = {}
    for line in open(dump_path):
        r = json.loads(line)
        if r["kind"] in ("kernel", "api"):
            byc[(r["kind"], r["correlation"])] = r
    napi = 0
    for e in evs:
        if e["ph"] != "X" or e["cat"] not in ("kernel", "cuda_runtime", "cuda_driver"):
            continue
        kind = "kernel" if e["cat"] == "kernel" else "api"
        r = byc[(kind, e["args"]["correlation"])]
        assert e["ts"] * 1000 == r["start"] - t0, (e, r)
        assert e["dur"] * 1000 == r["end"] - r["start"], (e, r)
        napi += kind == "api"
    assert napi == sum(1 for k in byc if k[0] == "api"), "API calls missing"
print("ok", len(evs), "events", phs)
PY

# One process, two devices, every record kind.
"$TRACEGEN" --seed 7 --steps 3 --kernels 20 --copies 3 --devices 2 --streams 3 --nvtx-depth 2 \
	--all-kinds -o a.gpz >/dev/null || fail "tracegen"
expect_rc 0 "$prog" a.json a.gpz
expect_rc 0 "$GPUPROF" info --json a.gpz
mv out info.json
expect_rc 0 "$GPUPROF" dump --json a.gpz
mv out dump.json
python3 check.py a.json info.json dump.json >out 2>&1 || { cat out; fail "a.json is not valid"; }
grep -q '"GPU 1: ' a.json || fail "no second device"

# Two ranks: two processes, their GPUs named with the rank.
"$TRACEGEN" --seed 8 --steps 2 --kernels 10 --ranks 2 -o r%r.gpz >/dev/null || fail "tracegen ranks"
expect_rc 0 "$prog" r.json r0.gpz r1.gpz
expect_rc 0 "$GPUPROF" info --json r0.gpz r1.gpz
mv out rinfo.json
python3 check.py r.json rinfo.json - >out 2>&1 || { cat out; fail "r.json is not valid"; }
grep -q '(rank 1)"' r.json || fail "GPU of rank 1 not labeled"

# An unwritable path fails with the reason and leaves nothing behind.
expect_rc 1 "$prog" nodir/x.json a.gpz
grep -q "nodir/x.json: cannot create: No such file" err || fail "error: $(cat err)"

# The command: gpuprof export --perfetto, to a file and to standard output.
expect_rc 0 "$GPUPROF" export --perfetto cli.json a.gpz
cmp -s cli.json out.json 2>/dev/null || python3 -c 'import json; json.load(open("cli.json"))' ||
	fail "export --perfetto wrote no valid JSON"
expect_rc 0 "$GPUPROF" export --perfetto - a.gpz
python3 -c 'import json,sys; d=json.load(open("out")); sys.exit(not d["traceEvents"])' ||
	fail "export --perfetto - printed no trace"
expect_rc 2 "$GPUPROF" export a.gpz
grep -q "needs an output format (--sqlite or --perfetto)" err || fail "$(cat err)"
exit 0
