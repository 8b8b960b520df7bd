#!/bin/sh
# gpuprof comm on the real traces with NCCL kernels, read in place: the nsys
# exports of a two-GPU run (NCCL NVTX ranges become operations; kernels are
# known by name) and HTA's Kineto traces. Counts are checked against the
# files themselves; the exposed table must add up.
. "$TOP/tests/e2e/lib.sh"
need_anchors nsys kineto/hta
A=$ANCHORS
command -v python3 >/dev/null || exit 77

for db in "$A"/nsys/mfu_2gpu_before.sqlite "$A"/nsys/mfu_2gpu_after.sqlite; do
	have_anchors "${db#"$A"/}" || continue
	expect_rc 0 "$GPUPROF" comm --format json "$db"
	python3 - "$db" <<'PY' || fail "$db"
import json, sqlite3, sys
d = json.load(open("out"))
db = sqlite3.connect(sys.argv[1])
ranges = db.execute("""select count(*) from NVTX_EVENTS e left join StringIds s on s.id = e.textId
    where e.domainId != 0 and e.eventType = 59 and coalesce(e.text, s.value) in ('ncclSend', 'ncclRecv',
    'ncclAllReduce', 'ncclAllGather', 'ncclReduceScatter', 'ncclBroadcast', 'ncclReduce')""").fetchone()[0]
kern = db.execute("""select count(*) from CUPTI_ACTIVITY_KIND_KERNEL k join StringIds s on s.id = k.demangledName
    where lower(s.value) like '%nccl%'""").fetchone()[0]
s = d["summary"]
assert s["ops"] == ranges and ranges > 0, (s, ranges)
assert s["comm_kernels"] == kern and kern > 0 and s["by_name"] == kern, (s, kern)
for x in d["exposed"]:
    assert x["exposed_ns"] + x["overlapped_ns"] == x["comm_ns"], x
assert {c["collective"] for c in d["collectives"]} <= {"Send", "Recv", "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce"}
assert sum(c["count"] for c in d["collectives"]) == ranges
# These exports carry no GPU description (no TARGET_INFO_GPU): no link peak to compare with.
assert s["peak_known"] is False and all(c["peak_gb_per_s"] is None for c in d["collectives"]), s
PY
done

for j in "$A"/kineto/hta/nccl_parser_config/nccl_data.json.gz "$A"/kineto/hta/trace_diff/control/control.json.gz \
	"$A"/kineto/hta/trace_diff/test/test.json.gz; do
	have_anchors "${j#"$A"/}" || continue
	expect_rc 0 "$GPUPROF" comm --format json "$j"
	python3 - "$j" <<'PY' || fail "$j"
import gzip, json, sys
d = json.load(open("out"))
t = json.load(gzip.open(sys.argv[1]))
kern = [e for e in t["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"
        and "nccl" in e.get("name", "").lower()]
s = d["summary"]
assert s["comm_kernels"] == len(kern) and len(kern) > 0, (s, len(kern))
assert sum(x["comm_kernels"] for x in d["exposed"] if x["step"] == "all") == len(kern), d["exposed"]
for x in d["exposed"]:
    assert x["exposed_ns"] + x["overlapped_ns"] == x["comm_ns"], x
PY
done
exit 0
