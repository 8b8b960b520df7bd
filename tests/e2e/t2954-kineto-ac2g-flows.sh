#!/bin/sh
# Kineto "ac2g" flows (ph "s" on the launch call, "f" on the GPU op, id = the
# correlation) link a launch to its GPU op where the events carry no
# "correlation" arg (docs/import.md). Worked by hand on a step [1000, 1200)
# us: cudaLaunchKernel [1010, 1020) -> kernA [1030, 1080), [1025, 1035) ->
# kernB [1080, 1150), cudaDeviceSynchronize [1040, 1160). With the flows,
# before or after the events they join: cpu 50 us (10 before the first
# call, 40 before the step's end), synchronization 10 (the sync's after
# kernB), launch 20 (call and latency of kernA), kernel 120, idle 0; launch
# delays 10 and 45 us. Without the flows nothing is linked: idle 30, cpu 40,
# synchronization 10, no launch. On
# the HTA critical-path anchors, dropping every correlation arg and keeping
# the flows changes neither critical-path nor launches.
. "$TOP/tests/e2e/lib.sh"

mk() {
	python3 - "$@" <<'PY' || fail "writing $*"
import json, sys
flows, order = sys.argv[1] == "1", sys.argv[2]
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
       "ts": 1000, "dur": 200}]
ops, fl = [], []
for cid, (cs, ks, kd, name) in enumerate([(1010, 1030, 50, "kernA"), (1025, 1080, 70, "kernB")],
                                          start=7):
    ops.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                "tid": 1, "ts": cs, "dur": 10, "args": {"cbid": 211}})
    ops.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ks,
                "dur": kd, "args": {"device": 0, "stream": 7}})
    fl.append({"ph": "s", "id": cid, "pid": 1, "tid": 1, "ts": cs, "cat": "ac2g",
               "name": "ac2g"})
    fl.append({"ph": "f", "id": cid, "pid": 0, "tid": 7, "ts": ks, "cat": "ac2g",
               "name": "ac2g", "bp": "e"})
# a flow of another category at the same place is not a launch's
fl.append({"ph": "s", "id": 99, "pid": 0, "tid": 7, "ts": 1030, "cat": "fwdbwd", "name": "fwdbwd"})
ops.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1,
            "tid": 1, "ts": 1040, "dur": 120, "args": {"cbid": 165}})
ev += (fl + ops if order == "before" else ops + fl) if flows else ops
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[3], "w"))
PY
}

check_cp() { # cpu launch kernel idle
	python3 - "$@" <<'PY' || fail "critical-path $*: $(head -c 600 out)"
import json, sys
want = [int(x) * 1000 for x in sys.argv[1:]]
s = json.load(open("out"))["steps"][0]
got = [s["cpu_ns"], s["launch_overhead_ns"], s["kernel_ns"], s["idle_ns"]]
assert got == want and s["time_ns"] == 200000, (got, want, s)
PY
}

check_launches() { # launches unlinked delay-max
	python3 - "$@" <<'PY' || fail "launches $*: $(head -c 600 out)"
import json, sys
n, unlinked, dmax = (int(x) for x in sys.argv[1:])
d = json.load(open("out"))
assert d["totals"]["launches"] == n and d["totals"]["unlinked"] == unlinked, d["totals"]
delay = [r for r in d["summary"] if r["quantity"].startswith("launch delay")][0]
assert delay["count"] == n and (delay["max_ns"] or 0) == dmax, delay
PY
}

for order in after before; do
	mk 1 "$order" "f-$order.json"
	expect_rc 0 "$GPUPROF" critical-path --format json "f-$order.json"
	[ -s err ] && fail "unexpected stderr: $(cat err)"
	check_cp 50 20 120 0
	expect_rc 0 "$GPUPROF" launches --format json "f-$order.json"
	check_launches 2 0 45000
done
mk 0 after none.json
expect_rc 0 "$GPUPROF" critical-path --format json none.json
check_cp 40 0 120 30
expect_rc 0 "$GPUPROF" launches --format json none.json
check_launches 0 2 0

have_anchors kineto/hta/critical_path || exit 0
for f in "$ANCHORS"/kineto/hta/critical_path/*/*.json.gz; do
	python3 - "$f" nocorr.json <<'PY' || fail "dropping correlations of $f"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
n = 0
for e in d["traceEvents"]:
    a = e.get("args")
    if isinstance(a, dict) and "correlation" in a:
        del a["correlation"]
        n += 1
assert n, "no correlation arg"
json.dump(d, open(sys.argv[2], "w"))
PY
	for cmd in critical-path launches; do
		expect_rc 0 "$GPUPROF" $cmd --format json "$f"
		mv out with
		expect_rc 0 "$GPUPROF" $cmd --format json nocorr.json
		cmp -s with out || fail "$cmd on $f differs without correlations"
	done
done
exit 0
