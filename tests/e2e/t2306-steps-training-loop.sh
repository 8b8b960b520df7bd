#!/bin/sh
# Steps from the training loop's own annotations (docs/report.md, Definitions):
# without ProfilerStep#N, the DataLoader fetch / Optimizer.zero_grad /
# Optimizer.step annotations PyTorch makes once per iteration delimit the
# iterations, to the nanosecond, in every format and every command that
# works per step; one iteration is no evidence; ProfilerStep#N still wins.
# On the anchors: the iterations of the trace that has only these
# annotations follow its zero_grad annotations, and with ProfilerStep#N
# removed from a trace that has both, the loop gives the ProfilerStep steps.
. "$TOP/tests/e2e/lib.sh"
command -v python3 >/dev/null || exit 77

# gen.py OUT ITERATIONS [profiler]: a Kineto trace of a training loop. Each
# iteration (1000.5 us apart, from 1000.125 us) fetches a batch, zeroes the
# gradients, launches a 500 us gemm, steps the optimizer (a 50 us kernel)
# and synchronizes; an evaluation kernel runs long after the loop.
cat >gen.py <<'PY'
import json, sys
out, n, prof = sys.argv[1], int(sys.argv[2]), len(sys.argv) > 3
ev, corr = [], [0]
def x(cat, name, ts, dur, pid=7, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": 7, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    ev.append(e)
def launch(ts, kernel, kts, kdur):
    corr[0] += 1
    x("cuda_runtime", "cudaLaunchKernel", ts, 5, correlation=corr[0])
    x("kernel", kernel, kts, kdur, pid=0, device=0, stream=7, correlation=corr[0])
for i in range(n):
    b = 1000.125 + 1000.5 * i
    if prof:
        x("user_annotation", "ProfilerStep#%d" % i, b - 10, 990)
    x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", b, 50)
    x("user_annotation", "Optimizer.zero_grad#SGD.zero_grad", b + 100, 10)
    launch(b + 200, "gemm", b + 210, 500)
    x("user_annotation", "Optimizer.step#SGD.step", b + 700, 100)
    launch(b + 710, "sgd", b + 720, 50)
    x("cuda_runtime", "cudaStreamSynchronize", b + 850, 100)
launch(9000, "eval", 9010, 5)
json.dump({"traceEvents": ev}, open(out, "w"))
PY
python3 gen.py loop.json 4 || fail "gen.py"
python3 gen.py one.json 1 || fail "gen.py"
python3 gen.py prof.json 4 profiler || fail "gen.py"

FETCH='enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__'

# ---- four iterations: each from its fetch to the next, 1000500 ns; the last
# ends at its optimizer step's end plus the 200 us the others ran after theirs.
expect_rc 0 "$GPUPROF" report --format json loop.json
mv out report.json
expect_rc 0 "$GPUPROF" critical-path --format json loop.json
mv out cp.json
expect_rc 0 "$GPUPROF" gaps --format json loop.json
mv out gaps.json
expect_rc 0 "$GPUPROF" diff -q --json diff.json loop.json -- loop.json
python3 - "$FETCH" <<'PY' || fail "four iterations"
import json, sys
fetch = sys.argv[1]
r = json.load(open("report.json"))
assert r["step_source"] == "training-loop", r["step_source"]
steps = r["steps"]
assert [s["step"] for s in steps] == [0, 1, 2, 3], steps
for s in steps:
    assert s["name"] == fetch and s["wall_ns"] == 1000500 and s["gpu_ops"] == 2, s
# the overview's warning, then what the occupancy section could not know (kernels without
# launch configurations), as in every format
assert r["warnings"] == ["1 GPU operations were launched outside every step",
                         "No occupancy for 9 launches: launch configuration or compute "
                         "capability not recorded."], r["warnings"]
# The critical path per step starts each at its fetch (from the first event, the first fetch).
cp = json.load(open("cp.json"))["steps"]
assert [s["start_ns"] for s in cp] == [0, 1000500, 2001000, 3001500], cp
assert all(s["time_ns"] == 1000500 for s in cp), cp
g = json.load(open("gaps.json"))
assert g["options"]["step_source"] == "training-loop", g["options"]
d = json.load(open("diff.json"))
wall = [m for m in d["metrics"] if m["name"] == "step.wall"][0]
assert wall["samples"] == [4, 4] and wall["baseline_median"] == 1000500, wall
PY
expect_rc 0 "$GPUPROF" report loop.json
grep -qF "4 steps (training-loop '$FETCH'): median wall 1.001 ms" out ||
	fail "text headline: $(head -5 out)"
expect_rc 0 "$GPUPROF" report --format markdown loop.json
grep -qF "4 steps (training-loop '$FETCH')" out || fail "markdown headline"
expect_rc 0 "$GPUPROF" report --format html loop.json
grep -qF "training-loop" out || fail "html: no step source"
expect_rc 0 "$GPUPROF" flame --by-step loop.json
[ "$(grep -c "^pid 7;$FETCH;" out)" -gt 0 ] || fail "flame --by-step: $(cat out)"

# ---- one iteration is no evidence: the whole trace.
expect_rc 0 "$GPUPROF" report --format json one.json
python3 -c '
import json, sys
r = json.load(open("out"))
assert r["step_source"] == "whole-trace" and len(r["steps"]) == 1, (r["step_source"], r["steps"])
' || fail "one iteration"

# ---- ProfilerStep#N ranges win.
expect_rc 0 "$GPUPROF" report --format json prof.json
python3 -c '
import json
r = json.load(open("out"))
assert r["step_source"] == "nvtx", r["step_source"]
assert [s["name"] for s in r["steps"]] == ["ProfilerStep#%d" % i for i in range(4)], r["steps"]
assert all(s["wall_ns"] == 990000 for s in r["steps"]), r["steps"]
' || fail "ProfilerStep#N"

# ---- anchors
have_anchors kineto/hta/with_gpu_user_annotation kineto/hta/trace_diff/control || exit 0
# Only zero_grad and optimizer-step annotations: an iteration per zero_grad,
# from one to the next, as the raw events say.
f=$(ls "$ANCHORS"/kineto/hta/with_gpu_user_annotation/*.json.gz | head -n 1)
expect_rc 0 "$GPUPROF" report --format json "$f"
python3 - "$f" <<'PY' || fail "$f"
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1], "rt"))["traceEvents"]
zg = sorted(round(e["ts"] * 1000) for e in ev
            if e.get("cat") == "user_annotation" and e["name"].startswith("Optimizer.zero_grad#"))
r = json.load(open("out"))
assert r["step_source"] == "training-loop", r["step_source"]
walls = [s["wall_ns"] for s in r["steps"]]
assert len(walls) == len(zg) >= 2, (walls, zg)
assert walls[:-1] == [b - a for a, b in zip(zg, zg[1:])], (walls, zg)
PY
# With its ProfilerStep#N annotations removed, a trace that also has fetch,
# zero_grad and optimizer-step annotations gives the same iterations.
f=$(ls "$ANCHORS"/kineto/hta/trace_diff/control/*.json.gz | head -n 1)
python3 - "$f" <<'PY' || fail "stripping $f"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1], "rt"))
d["traceEvents"] = [e for e in d["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep#")]
json.dump(d, open("stripped.json", "w"))
PY
expect_rc 0 "$GPUPROF" report --format json "$f"
mv out with.json
expect_rc 0 "$GPUPROF" report --format json stripped.json
python3 - <<'PY' || fail "$f without ProfilerStep#N"
import json
a, b = json.load(open("with.json")), json.load(open("out"))
assert a["step_source"] == "nvtx" and b["step_source"] == "training-loop", b["step_source"]
sa, sb = a["steps"], b["steps"]
assert len(sa) == len(sb) >= 2, (len(sa), len(sb))
for x, y in zip(sa, sb):
    assert x["gpu_ops"] == y["gpu_ops"], (x, y)
    assert abs(x["wall_ns"] - y["wall_ns"]) <= x["wall_ns"] // 100, (x, y)
PY
exit 0
