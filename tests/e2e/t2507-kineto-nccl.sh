#!/bin/sh
# Kineto NCCL collective args ("Collective name", "In msg nelems", "dtype",
# "Process Group Name", ...) on the nccl_parser_config anchor: each
# record_param_comms CPU op becomes an NCCL record (source 3) and its NCCL
# kernel an EXTCORR link, checked with gpuprof dump; gpuprof comm then sees
# each collective once, timed on the GPU by its kernel.
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto/hta/nccl_parser_config/nccl_data.json.gz
a=$ANCHORS/kineto/hta/nccl_parser_config/nccl_data.json.gz
expect_rc 0 "$GPUPROF" convert "$a" n.gpz
expect_rc 0 "$GPUPROF" dump --json --kind nccl n.gpz
cp out nccl.jsonl
expect_rc 0 "$GPUPROF" dump --json --kind extcorr n.gpz
cp out ext.jsonl
python3 - <<'PY' || fail "nccl records: $(head -c 2000 nccl.jsonl)"
import collections, json
recs = [json.loads(l) for l in open("nccl.jsonl") if l.startswith("{")]
ext = [json.loads(l) for l in open("ext.jsonl") if l.startswith("{")]
# the anchor has 48 events with "Collective name": 15 allreduce and 6 broadcast
# record_param_comms CPU ops, their 21 NCCL kernels, and 6 "wait" ops (not NCCL)
assert len(recs) == 21, len(recs)
assert all(r["source"] == 3 for r in recs)
funcs = collections.Counter(r["func"] for r in recs)
assert funcs == {"AllReduce": 15, "Broadcast": 6}, funcs
assert all(r["tid"] != 0 and not r.get("stream") for r in recs)
# one process group: one communicator hash; 2 ranks; dtype Float = ncclFloat32 (7)
assert len({r["comm_hash"] for r in recs}) == 1
assert all(r["nranks"] == 2 for r in recs)
for r in recs:
    if r.get("datatype") == 7:
        assert r["bytes"] == 4 * r["count"], r
assert any(r.get("datatype") == 7 for r in recs)
# every op's kernel linked once, by external id (CUPTI external kind CUSTOM2 = 5)
assert len(ext) == 21 and all(x["external_kind"] == 5 for x in ext), ext[:2]
assert sorted(x["external_id"] for x in ext) == sorted(r["external_id"] for r in recs)
PY
expect_rc 0 "$GPUPROF" comm n.gpz
grep -q "^21 NCCL operations (0 point-to-point), 21 with GPU times" out || fail "comm: $(head -3 out)"
