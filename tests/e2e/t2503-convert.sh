#!/bin/sh
# gpuprof convert, and analyses reading Kineto JSON and nsys exports directly.
. "$TOP/tests/e2e/lib.sh"

cat >k.json <<'JSON'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "computeMajor": 9,
 "computeMinor": 0, "numSms": 132, "totalGlobalMem": 85000000000}],
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7,
   "ts": 1000.000, "dur": 100.5},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7,
   "ts": 1010.250, "dur": 5.001, "args": {"correlation": 11}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020.125,
   "dur": 30.0005, "args": {"device": 0, "stream": 7, "correlation": 11,
   "grid": [8, 1, 1], "block": [128, 1, 1], "registers per thread": 64,
   "shared memory": 0}}
 ]}
JSON
expect_rc 0 "$GPUPROF" convert k.json k.gpz
expect_rc 0 "$GPUPROF" dump --json --kind kernel k.gpz
# Fractional microseconds become exact nanoseconds (30.0005 us = 30000.5 ns rounds to 30001).
python3 - <<'PY' || fail "kernel record: $(cat out)"
import json
k = json.loads(open("out").read().splitlines()[0])
assert k["start"] == 1020125, k
assert k["end"] - k["start"] in (30000, 30001), k
assert k["grid_x"] == 8 and k["block_x"] == 128 and k["registers"] == 64, k
PY
# The analyses take the JSON directly, with the same answers as on the converted file.
expect_rc 0 "$GPUPROF" report --format json k.json
mv out direct.json
expect_rc 0 "$GPUPROF" report --format json k.gpz
python3 - <<'PY' || fail "direct and converted reports differ"
import json
a, b = json.load(open("direct.json")), json.load(open("out"))
for key in ("steps", "kernels", "devices", "gpu"):
    assert a[key] == b[key], key
assert [s["name"] for s in a["steps"]] == ["ProfilerStep#1"], a["steps"]
PY

# Errors: not importable, already a trace, missing input, usage.
echo "just text" >t.txt
expect_rc 1 "$GPUPROF" convert t.txt o.gpz
grep -q "^gpuprof: error: t.txt: " err || fail "$(cat err)"
[ -e o.gpz ] && fail "output left behind after a failed conversion"
echo '{"traceEvents": [ {"ph": "X", "ts": ' >cut.json
expect_rc 1 "$GPUPROF" convert cut.json o.gpz
grep -q "^gpuprof: error: cut.json: " err || fail "$(cat err)"
expect_rc 1 "$GPUPROF" report cut.json
grep -q "^gpuprof: error: cut.json: " err || fail "$(cat err)"
expect_rc 1 "$GPUPROF" convert k.gpz o.gpz
grep -q "already a gpuprof trace" err || fail "$(cat err)"
expect_rc 1 "$GPUPROF" convert nosuch.json o.gpz
expect_rc 2 "$GPUPROF" convert k.json

# A real nsys export, when the shared anchors are beside the checkout.
nsys=$ANCHORS/nsys/mfu_2gpu_before.sqlite
if have_anchors nsys/mfu_2gpu_before.sqlite; then
	expect_rc 0 "$GPUPROF" convert "$nsys" n.gpz
	expect_rc 0 "$GPUPROF" info --json n.gpz
	want=$(python3 -c "import sqlite3; print(sqlite3.connect('file:$nsys?mode=ro', uri=True).execute('select count(*) from CUPTI_ACTIVITY_KIND_KERNEL').fetchone()[0])")
	python3 -c "import json,sys; f=json.load(open('out'))['files'][0]; sys.exit(f['records']['kernel'] != $want)" ||
		fail "kernel count differs from the export's $want"
	expect_rc 0 "$GPUPROF" stats -r cuda_gpu_kern_sum -f csv "$nsys"
fi
exit 0
