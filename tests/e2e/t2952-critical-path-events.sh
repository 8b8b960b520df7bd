#!/bin/sh
# gpuprof critical-path with event dependencies: two streams joined by an
# event (cudaEventRecord on stream 7, cudaStreamWaitEvent on stream 8, as a
# Kineto trace names them: wait_on_stream, wait_on_cuda_event_record_corr_id).
# The answers are computed by hand in docs/critical-path.md ("Events"):
# the path runs launch C, launch A, kernel A, the event, kernel B, the host
# sync, the step's end; kernel C, on a third stream, ends later than A and is
# off the path. Without the event the old inference links B to C instead.
. "$TOP/tests/e2e/lib.sh"

cat >ev.json <<'JSON'
{"schemaVersion": 1, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 100, "ts": 1000, "dur": 110},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100, "ts": 1002, "dur": 3, "args": {"correlation": 5}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100, "ts": 1010, "dur": 5, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 1, "tid": 100, "ts": 1016, "dur": 2, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 100, "ts": 1019, "dur": 2, "args": {"correlation": 3}},
{"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 8, "ts": 1019, "dur": 2, "args": {"correlation": 3, "stream": 8, "device": 0, "context": 1, "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 2, "wait_on_cuda_event_id": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 100, "ts": 1022, "dur": 5, "args": {"correlation": 4}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 100, "ts": 1030, "dur": 72, "args": {"correlation": 6}},
{"ph": "X", "cat": "kernel", "name": "kernC_off_path", "pid": 0, "tid": 9, "ts": 1006, "dur": 64.5, "args": {"correlation": 5, "stream": 9, "device": 0, "context": 1}},
{"ph": "X", "cat": "kernel", "name": "kernA_before_record", "pid": 0, "tid": 7, "ts": 1020, "dur": 50, "args": {"correlation": 1, "stream": 7, "device": 0, "context": 1}},
{"ph": "X", "cat": "kernel", "name": "kernB_after_wait", "pid": 0, "tid": 8, "ts": 1071, "dur": 30, "args": {"correlation": 4, "stream": 8, "device": 0, "context": 1}}
]}
JSON

# check FILE TIME CPU LAUNCH KERNEL WAIT WHATIF: the step's composition in ns.
check() {
	python3 - "$@" <<'PY' || fail "$*: $(head -c 600 out)"
import json, sys
want = [int(x) for x in sys.argv[1:]]
d = json.load(open("out"))
s = d["steps"][0]
got = [s["time_ns"], s["cpu_ns"], s["launch_overhead_ns"], s["kernel_ns"],
       s["wait_stream_ns"], d["totals"]["what_if_time_ns"]]
assert got == want, (got, want)
cats = ["cpu", "launch-overhead", "kernel", "copy", "communication", "wait-stream", "wait-rank",
        "idle", "synchronization", "data-loading", "warm-up"]
assert sum(s[c.replace("-", "_") + "_ns"] for c in cats) == s["time_ns"], s
PY
}

expect_rc 0 "$GPUPROF" critical-path --format json ev.json
[ -s err ] && fail "unexpected stderr: $(cat err)"
check 110000 15000 13000 80000 1000 110000
grep -q '"event":"kernA_before_record"' out || fail "kernel A not on the path"
grep -q '"event":"kernC_off_path"' out && fail "kernel C on the path"
# A on the path: twice as fast, B follows the event 25 us earlier.
expect_rc 0 "$GPUPROF" critical-path --format json --speedup kernA=2 ev.json
check 110000 15000 13000 80000 1000 85000
# B on the path, after the wait: three times as fast saves 20 us.
expect_rc 0 "$GPUPROF" critical-path --format json --speedup kernB=3 ev.json
check 110000 15000 13000 80000 1000 90000
# C off the path: nothing.
expect_rc 0 "$GPUPROF" critical-path --format json --speedup kernC=2 ev.json
check 110000 15000 13000 80000 1000 110000

# The same trace without the event's ids: the inferred edge goes to C, which
# ended last before B started, and speeding up A buys nothing.
sed 's/"wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 2, //' ev.json >noev.json
expect_rc 0 "$GPUPROF" critical-path --format json --speedup kernA=2 noev.json
check 110000 10000 4000 94500 500 110000

# The path as flows in the Perfetto export: launch C -> launch A -> kernel A
# -> kernel B -> the host sync, each arrow from the end of one event (less
# 1 ns) into the next, forward in time.
expect_rc 0 "$GPUPROF" export --perfetto p.json --critical-path ev.json
python3 - <<'PY' || fail "perfetto flows: $(grep -c critical_path p.json)"
import json
d = json.load(open("p.json"))
ev = [e for e in d["traceEvents"] if e.get("cat") == "critical_path"]
got = [(e["ph"], e["tid"], e["ts"]) for e in ev]
want = [("s", 100, 4.999), ("f", 100, 10.001), ("s", 100, 14.999), ("f", 7, 20.001),
        ("s", 7, 69.999), ("f", 8, 71.001), ("s", 8, 100.999), ("f", 100, 100.999)]
assert got == want, got
assert all(e["id"] == ev[i - i % 2]["id"] for i, e in enumerate(ev)), ev
PY
expect_rc 0 "$GPUPROF" export --perfetto q.json ev.json
grep -q critical_path q.json && fail "flows without --critical-path"
expect_rc 2 "$GPUPROF" export --perfetto p.pftrace --critical-path ev.json
grep -q -- "--critical-path needs a JSON --perfetto output" err || fail "pftrace: $(cat err)"

# The import keeps the ids: the converted trace holds them.
expect_rc 0 "$GPUPROF" convert --quiet ev.json ev.gpz
expect_rc 0 "$GPUPROF" dump ev.gpz
grep -q 'type=2 correlation=3 .*record_correlation=2 record_stream=7' out ||
	fail "dump: $(grep '^sync' out)"
exit 0
