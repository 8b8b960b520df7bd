#!/bin/sh
# A slow GPU among 64 generated ranks (rank 42's compute kernels 25 % slower,
# tracegen --slow-rank) is found against the same kernels' median on its peers,
# with no straggler claimed; 5 % slower stays below the threshold (nothing
# material); a straggler and a slow GPU in one job are both found.
. "$TOP/tests/e2e/lib.sh"

mkdir a b c d
"$TRACEGEN" --nccl --ranks 64 --steps 4 --slow-rank 42 --slowdown 1.25 -o 'a/r%r.gpz' \
	>/dev/null || fail tracegen
"$TRACEGEN" --nccl --ranks 64 --steps 4 --slow-rank 42 --slowdown 1.05 -o 'b/r%r.gpz' \
	>/dev/null || fail tracegen
"$TRACEGEN" --nccl --ranks 64 --steps 4 --slow-rank 5 --slowdown 1.5 --straggler 60 \
	--nccl-late 900000 --nccl-fill 20 -o 'c/r%r.gpz' >/dev/null || fail tracegen
# --slow-rank without --slowdown: 1.3
"$TRACEGEN" --nccl --ranks 8 --steps 2 --slow-rank 7 -o 'd/r%r.gpz' >/dev/null || fail tracegen
for d in a b c d; do
	expect_rc 0 "$GPUPROF" report --job --format json $d
	cp out $d.json
done
expect_rc 0 "$GPUPROF" report --job a
grep -q '^Slow GPUs: found: rank 42 (a/r42.gpz): kernels 1.25x' out || fail "text: $(grep Slow out)"
python3 - <<'PY' || fail "known answers"
import json
a = json.load(open("a.json")); b = json.load(open("b.json")); c = json.load(open("c.json"))
d = json.load(open("d.json"))
assert d["slow_gpus"]["ranks"] == [7] and abs(d["kernels"][7]["time_vs_peers_ratio"] - 1.3) < 1e-3, d["kernels"][7]
assert a["slow_gpus"] == {"verdict": "found", "ranks": [42]}, a["slow_gpus"]
k = {r["rank"]: r for r in a["kernels"]}
assert k[42]["slow"] == "yes" and abs(k[42]["time_vs_peers_ratio"] - 1.25) < 1e-3, k[42]
assert k[42]["worst_kernel"].startswith("sm90_xmma_gemm") and k[0]["time_vs_peers_ratio"] == 1.0, k[0]
assert sum(r["slow"] == "yes" for r in a["kernels"]) == 1
assert a["straggler"]["verdict"] == "nothing material", a["straggler"]
assert b["slow_gpus"]["verdict"] == "nothing material", b["slow_gpus"]
assert c["slow_gpus"]["ranks"] == [5], c["slow_gpus"]
assert c["straggler"]["verdict"] == "found" and c["straggler"]["rank"] == 60, c["straggler"]
# the filler kernels are compared too: two kernels per rank
assert {r["kernels_compared"] for r in c["kernels"]} == {2}, c["kernels"][0]
PY
exit 0
