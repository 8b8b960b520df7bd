#!/bin/sh
# PyTorch operators recorded as NVTX ranges under
# torch.autograd.profiler.emit_nvtx(record_shapes=True), in an nsys export:
# a copy of an nsys anchor gets, around each kernel's launch call, the ranges
# PyTorch pushes for aten::linear and the aten::addmm inside it. gpuprof ops
# attributes each kernel to aten::addmm (the leaf) with FLOPs from the sizes
# (2·1024·4096·4096 + 1024·4096 per call), and says the ranges carry no data
# types (no bytes, no roofline). The anchor's own range "saxpy" stays a range.
. "$TOP/tests/e2e/lib.sh"

need_anchors nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
command -v sqlite3 >/dev/null 2>&1 || exit 77
command -v python3 >/dev/null 2>&1 || exit 77
cp "$ANCHORS/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite" n.sqlite || fail "copy"
chmod u+w n.sqlite
# every kernel's launch: [first start, last end] of the runtime calls of its correlation
sqlite3 n.sqlite "CREATE TEMP TABLE l AS SELECT min(r.start) AS s, max(r.end) AS e, r.globalTid AS tid,
		k.correlationId AS c FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
		ON r.correlationId = k.correlationId GROUP BY k.correlationId;
	INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)
		SELECT s - 500, e + 500, 59, 'aten::linear, seq = ' || c || ', op_id = ' || (2 * c) ||
		', sizes = [[1024, 4096], [4096, 4096], [4096]]', tid, 0 FROM l;
	INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId)
		SELECT s - 300, e + 300, 59, 'aten::addmm, op_id = ' || (2 * c + 1) ||
		', sizes = [[4096], [1024, 4096], [4096, 4096], [], []], input_op_ids = [(0,0), ' ||
		'(' || (2 * c) || ',0)]', tid, 0 FROM l;" || fail "insert"
sqlite3 n.sqlite "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL" >k.txt ||
	fail "kernels"

expect_rc 0 "$GPUPROF" ops --format json n.sqlite
python3 - <<'PY' || fail "operators from NVTX"
import json
n, ns = map(int, open("k.txt").read().strip().split("|"))
d = json.load(open("out"))
t = d["totals"]
assert n == 5 and t["gpu_ops_in_ops"] == n, (n, t)
assert t["cpu_ops"] == 2 * n and t["cpu_ops_shaped"] == 2 * n, t
assert "without data types" in d["note"], d["note"]
names = {r["operator"]: r for r in d["by_name"]}
assert list(names) == ["aten::addmm"], names      # the leaf: aten::linear launches nothing
a = names["aten::addmm"]
flops = 2 * 1024 * 4096 * 4096 + 1024 * 4096        # 34363932672 per call
assert a["calls"] == n and a["gpu_time_ns"] == ns and a["model"] == "gemm", a
assert a["gflop"] == round(n * flops / 1e9, 3), a
assert a["tflop_per_s"] == round(n * flops / ns / 1000, 3), a
# no data types: no bytes, no peak, no place on the roofline
assert a["data_moved_mb"] is None and a["flop_per_byte"] is None, a
assert a["bound"] == "" and a["roofline_pct"] is None, a
r = d["by_inputs"]
assert len(r) == 1 and r[0]["inputs"] == "D=[[4096],[1024,4096],[4096,4096],[],[]]", r
assert r[0]["type"] == "" and r[0]["gflop"] == 34.364, r[0]
PY
expect_rc 0 "$GPUPROF" stats --report nvtx_sum --format csv n.sqlite
grep -q '"\{0,1\}saxpy' out || fail "the user's range: $(cat out)"
grep -q 'aten::addmm' out || fail "operator ranges in nvtx_sum: $(cat out)"
grep -q 'sizes = ' out && fail "raw PyTorch range text left: $(cat out)"
# no bytes: no point on the HTML roofline
expect_rc 0 "$GPUPROF" report --format html -o r.html n.sqlite
grep -q 'sec-roofline' r.html && fail "a roofline point without bytes"
# a range of another form stays as it is
sqlite3 n.sqlite "UPDATE NVTX_EVENTS SET text = text || ' tail' WHERE text LIKE 'aten::addmm,%'" ||
	fail "update"
expect_rc 0 "$GPUPROF" ops --format json n.sqlite
python3 - <<'PY' || fail "damaged ranges"
import json
d = json.load(open("out"))
assert [r["operator"] for r in d["by_name"]] == ["aten::linear"], d["by_name"]
assert d["totals"]["cpu_ops"] == 5, d["totals"]
PY
exit 0
