#!/bin/sh
# Recording device memory: the injected library enables CUPTI MEMORY2 and
# MEMORY_POOL; the fake CUPTI emits them for cudaMalloc, cudaFree and a
# memory pool (tests/fakecuda/scenarios/memory.txt). Every record arrives
# with its fields (address, size, kind, correlation of its call, pc), and
# gpuprof memory attributes each allocation through its call's correlation
# to the thread's NVTX range: 64 MiB under "load", 16 MiB per step under
# "forward" (freed there), 1 MiB per step under "cache" (kept: a leak).
# GPUPROF_KINDS=-memory records none of it.
. "$TOP/tests/fakecuda/e2e-lib.sh"

inject env GPUPROF_OUTPUT="$PWD/m.gpz" "$RUN" -e m.exp -s 3 "$SCEN/memory.txt" >out.txt \
	2>err.txt || fail "exit $?: $(cat err.txt)"
[ -s err.txt ] && fail "stderr: $(cat err.txt)"
"$CHECK" compare m.gpz m.exp || fail "trace differs from what the fake CUPTI emitted"
for k in memory memory_pool api; do
	grep -q "^K $k\$" m.exp || fail "no $k records in the scenario"
done
"$GPUPROF" info m.gpz >info.txt || fail "info"
grep -q 'memory 13' info.txt || fail "memory records: $(grep records info.txt)"
grep -q 'memory_pool 2' info.txt || fail "memory_pool records: $(grep records info.txt)"

"$GPUPROF" memory --format json m.gpz >m.json || fail "gpuprof memory"
python3 - <<'PY' || fail "memory analysis of the recorded trace"
import json
MIB = 1 << 20
r = json.load(open("m.json"))
assert r["events"] == 13, r["events"]
d = r["devices"][0]
assert d["device"] == "cuda:0" and d["totals"] == "rebuilt", d
assert d["peak_allocated_bytes"] == 83 * MIB and d["phase"] == "forward", d
own = {o["allocated_by"]: (o["bytes"], o["allocations"], o["phase"]) for o in r["owners"]}
assert own == {"load": (64 * MIB, 1, "unknown"), "forward": (16 * MIB, 1, "forward"),
               "cache": (3 * MIB, 3, "unknown")}, own
ends = [s["live_at_end_bytes"] for s in r["steps"]]
assert ends == [(64 + k) * MIB for k in range(1, 5)], ends
assert r["leaks"][0]["growth_per_step_bytes"] == MIB and r["leaks"][0]["allocated_by"] == "cache"
assert r["calls"][0]["calls"] == 13, r["calls"]
PY

inject env GPUPROF_KINDS=-memory GPUPROF_OUTPUT="$PWD/n.gpz" "$RUN" -s 3 "$SCEN/memory.txt" \
	>out.txt 2>err.txt || fail "without memory: exit $?: $(cat err.txt)"
"$GPUPROF" info n.gpz >info.txt || fail "info"
grep 'records' info.txt | grep -q 'memory' &&
	fail "memory recorded with GPUPROF_KINDS=-memory: $(grep records info.txt)"
exit 0
