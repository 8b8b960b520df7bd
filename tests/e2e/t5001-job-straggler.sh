#!/bin/sh
# The job report of 64 generated ranks with a planted straggler (rank 17, 1 ms
# late: above the generator's 10 us per rank stagger, so 370 us after rank 63):
# it is found, with how late, at which collective and what it ran before; no
# slow GPU is claimed. Without a straggler nothing material is said. comm --job
# shows the same straggler, and every rank's share of the matched collectives
# equals what gpuprof comm finds with all traces in one model. Text and Markdown of a small job against goldens.
. "$TOP/tests/e2e/lib.sh"

mkdir a b c
"$TRACEGEN" --nccl --ranks 64 --steps 4 --straggler 17 --nccl-late 1000000 -o 'a/r%r.gpz' \
	>/dev/null || fail tracegen
"$TRACEGEN" --nccl --ranks 64 --steps 4 -o 'b/r%r.gpz' >/dev/null || fail tracegen
"$TRACEGEN" --nccl --ranks 4 --steps 2 --straggler 1 --nccl-late 500000 -o 'c/r%r.gpz' \
	>/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" report --job --format json a
cp out a.json
expect_rc 0 "$GPUPROF" report --job --format json b
cp out b.json
expect_rc 0 "$GPUPROF" comm --job --format json a
cp out comm.json
expect_rc 0 "$GPUPROF" comm --format json --table ranks a
cp out whole.json
python3 - <<'PY' || fail "known answers"
import json
a = json.load(open("a.json")); b = json.load(open("b.json")); c = json.load(open("comm.json"))
assert a["schema"] == "gpuprof-job/2" and a["traces"] == 64 and a["analysed"] == 64, a["traces"]
assert a["not_analysed"] == 0 and a["failed"] == [], a["failed"]
s = a["straggler"]
assert s["verdict"] == "found" and s["rank"] == 17 and s["file"] == "a/r17.gpz", s
assert s["last"] == 4 and s["margin_ns"] == 370000, s
at = s["at"]
assert at["collective"] == "AllReduce" and at["communicator"] == "000000abcdef0123", at
assert at["doing"].startswith("sm90_xmma_gemm") and at["idle_before_ns"] == 200000, at
# the others waited 1 ms - 10 us * r for it at each of 4 steps
assert s["caused_ns"] == 4 * sum(1000000 - 10000 * r for r in range(64) if r != 17), s
assert a["skew"]["matched"] == 4 and a["skew"]["max"] == 1000000, a["skew"]
assert a["slow_gpus"]["verdict"] == "nothing material", a["slow_gpus"]
assert len(a["ranks"]) == 64 and all(r["steps"] == 4 for r in a["ranks"]), a["ranks"][0]
assert [x["step"] for x in a["steps"]] == [0, 1, 2, 3] and a["steps"][0]["ranks"] == 64
late = {r["rank"]: r for r in a["collective_ranks"]}
assert late[17]["last"] == 4 and late[63]["last"] == 0 and late[0]["mean_lateness_ns"] == 0
assert len(a["idle"]) == 64 and len(a["kernels"]) == 64
# no straggler: rank 63 is last, 10 us ahead of rank 62 only
assert b["straggler"]["verdict"] == "nothing material", b["straggler"]
assert {r["rank"]: r["last"] for r in b["collective_ranks"]}[63] == 4
assert c["straggler"] == a["straggler"] and "idle" not in c and "kernels" not in c, c.keys()
# the same matching as gpuprof comm on all traces in one model
w = json.load(open("whole.json"))
assert w["summary"]["straggler_rank"] == 17 and w["summary"]["matched"] == a["skew"]["matched"]
mine = {r["rank"]: (r["matched"], r["last"], r["caused_wait_ns"], r["waited_ns"],
		    r["mean_lateness_ns"]) for r in a["collective_ranks"]}
whole = {r["rank"]: (r["matched"], r["last"], r["wait_caused_ns"], r["waited_ns"],
		     r["mean_lateness_ns"]) for r in w["ranks"]}
assert mine == whole, [(k, mine[k], whole[k]) for k in mine if mine[k] != whole[k]][:3]
PY
expect_rc 0 "$GPUPROF" report --job c
golden t5001 out
expect_rc 0 "$GPUPROF" comm --job --format markdown c
golden t5001-md out
exit 0
