#!/bin/sh
# gpuprof critical-path across ranks: two ranks' traces from tracegen --nccl
# (tests/tools/gen-nccl.c), rank 1 arriving 400 us late at every AllReduce
# and the host waiting for it (--nccl-sync). Worked by hand per step of 3 ms:
# rank 0: the AllReduce kernel [T+1010, T+2410) waits 400 us for rank 1's
# kernel to start (wait-rank), then transfers 1000 us (communication); the
# host's sync ends at T+2415 and the step at T+3000: cpu 1585, launch 10,
# synchronization 5 (the sync's return after the kernel). Rank 1 waits for
# nobody: cpu 1985, launch 10, communication 1000. Twice
# as fast a transfer saves 500 us a step on both. One rank alone: no wait.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --nccl --nccl-sync --ranks 2 --straggler 1 -o r%r.gpz >/dev/null || fail tracegen

check() {
	python3 - "$@" <<'PY' || fail "$*: $(head -c 800 out)"
import json, sys
steps, r0, r1, whatif = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
d = json.load(open("out"))
cats = ["cpu", "launch-overhead", "kernel", "copy", "communication", "wait-stream",
        "wait-rank", "idle", "synchronization", "data-loading", "warm-up"]
assert len(d["steps"]) == steps, len(d["steps"])
want = [r0, r1]
for i, s in enumerate(d["steps"]):
    assert sum(s[c.replace("-", "_") + "_ns"] for c in cats) == s["time_ns"] == 3000000, s
    exp = [int(x) * 1000 for x in want[i * 2 // steps].split(",")]
    got = [s["cpu_ns"], s["launch_overhead_ns"], s["communication_ns"],
           s["wait_rank_ns"]]
    assert got == exp, (i, got, exp)
assert d["totals"]["what_if_time_ns"] == whatif, d["totals"]
PY
}

expect_rc 0 "$GPUPROF" critical-path --format json r0.gpz r1.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
check 20 1585,10,1000,400 1985,10,1000,0 60000000
expect_rc 0 "$GPUPROF" critical-path --format json --speedup ncclDevKernel=2 r0.gpz r1.gpz
check 20 1585,10,1000,400 1985,10,1000,0 50000000
# Rank 0 alone: nobody to wait for; its kernel's whole time is communication.
expect_rc 0 "$GPUPROF" critical-path --format json r0.gpz
check 10 1585,10,1400,0 1585,10,1400,0 30000000
# The text names the category.
expect_rc 0 "$GPUPROF" critical-path r0.gpz r1.gpz
grep -q '^wait-rank  *4\.000 ms' out || fail "text: $(cat out)"
exit 0
