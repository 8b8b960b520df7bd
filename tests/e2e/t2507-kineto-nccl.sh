#!/bin/sh
# Kineto NCCL collective args ("Collective name", "In msg nelems", "dtype",
# "Process Group Name", ...) become NCCL records (source 3), checked with
# gpuprof dump on the converted nccl_parser_config anchor.
. "$TOP/tests/e2e/lib.sh"

a=$TOP/../shared/anchors/kineto/hta/nccl_parser_config/nccl_data.json.gz
[ -f "$a" ] || exit 77
expect_rc 0 "$GPUPROF" convert "$a" n.gpz
expect_rc 0 "$GPUPROF" dump --json --kind nccl n.gpz
cp out nccl.jsonl
expect_rc 0 "$GPUPROF" dump --json --kind kernel n.gpz
cp out kernel.jsonl
python3 - <<'PY' || fail "nccl records: $(head -c 2000 nccl.jsonl)"
import collections, json
recs = [json.loads(l) for l in open("nccl.jsonl") if l.startswith("{")]
kern = [json.loads(l) for l in open("kernel.jsonl") if l.startswith("{")]
# the anchor has 48 events with "Collective name": 30 allreduce, 12 broadcast
# (each a record_param_comms CPU op or its NCCL kernel) and 6 "wait" (not NCCL)
assert len(recs) == 42, len(recs)
assert all(r["source"] == 3 for r in recs)
funcs = collections.Counter(r["func"] for r in recs)
assert funcs == {"AllReduce": 30, "Broadcast": 12}, funcs
gpu = [r for r in recs if r.get("stream", 0)]
cpu = [r for r in recs if not r.get("stream", 0)]
assert len(gpu) == 21 and len(cpu) == 21, (len(gpu), len(cpu))
assert all(r.get("tid", 0) == 0 and r["algorithm"] == "RING" and r["protocol"] == "LL" for r in gpu)
assert all(r["tid"] != 0 for r in cpu)
# one process group: one communicator hash; 2 ranks; dtype Float = ncclFloat32 (7)
assert len({r["comm_hash"] for r in recs}) == 1
assert all(r["nranks"] == 2 for r in recs)
assert collections.Counter(r.get("datatype", 0) for r in recs)[7] >= 1
for r in recs:
    if r.get("datatype") == 7:
        assert r["bytes"] == 4 * r["count"], r
# every GPU-side record is exactly one NCCL kernel's interval
kt = {(k["start"], k["end"]) for k in kern if "nccl" in k.get("name", "")}
assert all((r["start"], r["end"]) in kt for r in gpu)
# CPU and GPU sides pair up one to one by external id
assert {r["external_id"] for r in gpu} == {r["external_id"] for r in cpu}
assert len({r["external_id"] for r in gpu}) == 21
PY
