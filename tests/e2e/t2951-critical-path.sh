#!/bin/sh
# gpuprof critical-path: golden outputs on a small generated trace, with and
# without a what-if; every step's categories add up to its time; usage
# errors; on the HTA critical-path anchors the bound agrees with HTA's
# critical_path_summary where HTA's graph is complete (docs/critical-path.md).
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --steps 3 --kernels 6 --copies 1 -o g.gpz >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" critical-path g.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2951 out
expect_rc 0 "$GPUPROF" critical-path --format markdown --top 2 g.gpz
golden t2951-md out
expect_rc 0 "$GPUPROF" critical-path --format json --speedup 'flash=2' --remove softmax g.gpz
golden t2951-json out
python3 - <<'PY' || fail "categories do not add up"
import json
d = json.load(open("out"))
cats = ["cpu", "launch-overhead", "kernel", "copy", "communication", "wait-stream", "wait-rank",
        "idle", "synchronization", "data-loading", "warm-up"]
assert d["totals"]["what_if"] is True
for s in d["steps"]:
    assert sum(s[c.replace("-", "_") + "_ns"] for c in cats) == s["time_ns"], s
    assert s["what_if_time_ns"] <= s["time_ns"], s
    assert s["saved_ns"] == s["time_ns"] - s["what_if_time_ns"], s
assert d["totals"]["what_if_time_ns"] < d["totals"]["time_ns"], d["totals"]
PY
# A what-if matching nothing changes nothing.
expect_rc 0 "$GPUPROF" critical-path --format json --speedup 'no_such_kernel=3' g.gpz
python3 -c '
import json; d = json.load(open("out"))
assert d["totals"]["what_if_time_ns"] == d["totals"]["time_ns"], d["totals"]' || fail "no-op what-if"
# --window: the whole trace as one graph.
expect_rc 0 "$GPUPROF" critical-path --format csv --window 0:1s g.gpz
grep -q '^window,0,' out || fail "--window: $(head -3 out)"

expect_rc 2 "$GPUPROF" critical-path --speedup gemm g.gpz
grep -q "bad --speedup 'gemm' (REGEX=FACTOR)" err || fail "speedup: $(cat err)"
expect_rc 2 "$GPUPROF" critical-path --speedup gemm=0 g.gpz
grep -q "bad --speedup factor '0'" err || fail "speedup factor: $(cat err)"
expect_rc 2 "$GPUPROF" critical-path --remove '(' g.gpz
grep -q "bad remove pattern '('" err || fail "remove: $(cat err)"
expect_rc 2 "$GPUPROF" critical-path --window 5:1 g.gpz
grep -q "bad --window '5:1'" err || fail "window: $(cat err)"
expect_rc 2 "$GPUPROF" critical-path --window 0:1s --step x g.gpz
expect_rc 2 "$GPUPROF" critical-path
expect_rc 1 "$GPUPROF" critical-path missing.gpz

have_anchors kineto/hta/critical_path kineto/hta_reference || exit 0
ref=$ANCHORS/kineto/hta_reference
hta=$ANCHORS/kineto/hta
# anchor trace, HTA summary; HTA's largest category is the bound it found.
while read -r trace summary; do
	expect_rc 0 "$GPUPROF" critical-path --format json "$hta/$trace"
	python3 - "$ref/$summary" <<'PY' || fail "$trace"
import csv, json, sys
d = json.load(open("out"))
cats = ["cpu", "launch-overhead", "kernel", "copy", "communication", "wait-stream", "wait-rank",
        "idle", "synchronization", "data-loading", "warm-up"]
for s in d["steps"]:
    assert sum(s[c.replace("-", "_") + "_ns"] for c in cats) == s["time_ns"], s
rows = {r["bound_by"]: float(r["duration"]) for r in csv.DictReader(open(sys.argv[1]))}
hta_bound = max(rows, key=rows.get)
ours = {"cpu_bound": "cpu", "gpu_compute_bound": "kernel"}[hta_bound]
comp = {r["category"]: r["time_ns"] for r in d["composition"]}
# launch, sync and start-up calls are HTA's CPU ops: count them with cpu, as HTA does
for k in ("launch-overhead", "synchronization", "warm-up", "data-loading"):
    comp["cpu"] += comp.pop(k)
assert max(comp, key=comp.get) == ours, (comp, rows)
PY
done <<'EOF2'
critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz cp_alexnet__critical_path_summary.csv
critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz cp_simple_add__critical_path_summary.csv
critical_path/cuda_event_sync/event_sync_trace.json.gz cp_event_sync__critical_path_summary.csv
ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz ns_resolution_resnet__critical_path_summary.csv
trace_diff/control/control.json.gz trace_diff_control__critical_path_summary.csv
EOF2
