#!/bin/sh
# gpuprof flame on generated traces: golden folded stacks, weights that sum
# to the nanosecond to the GPU time the records hold, options, usage errors.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 8 --copies 1 --devices 2 --all-kinds -o a.gpz \
	>/dev/null || fail "tracegen"

expect_rc 0 "$GPUPROF" flame a.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2701 out
cp out all.folded

# The same with short names, no NVTX, by step, and the API-time graph.
expect_rc 0 "$GPUPROF" flame --names short --no-nvtx a.gpz
golden t2701-short out
expect_rc 0 "$GPUPROF" flame --by-step --kernel-name short a.gpz
golden t2701-steps out
cp out steps.folded
expect_rc 0 "$GPUPROF" flame --api a.gpz
golden t2701-api out
cp out api.folded

# Every count is an integer after the last space; the sum is the GPU time of
# every kernel, memcpy and memset record (and API time for --api).
"$GPUPROF" dump --json a.gpz >dump.jsonl || fail "dump"
python3 - <<'PY' || fail "folded weights do not add up"
import json, re
gpu = api = 0
names = set()
for line in open("dump.jsonl"):
    r = json.loads(line)
    if r["kind"] in ("kernel", "memcpy", "memset"):
        gpu += r["end"] - r["start"]
    elif r["kind"] == "api":
        api += r["end"] - r["start"]
def total(path, parts=2):
    s = 0
    for line in open(path):
        assert line.endswith("\n")
        stack, count = line[:-1].rsplit(" ", 1)
        assert re.fullmatch(r"[0-9]+", count), line
        assert ";;" not in stack and "\t" not in stack
        s += int(count)
    return s
assert total("all.folded") == gpu, (total("all.folded"), gpu)
assert total("steps.folded") == gpu
assert total("api.folded") == api, (total("api.folded"), api)
# Stacks are unique, start with the process and thread, and come in tree order.
lines = [l.rsplit(" ", 1)[0].split(";") for l in open("all.folded")]
assert len(set(map(tuple, lines))) == len(lines)
assert all(l[0] == "rank 0" and l[1] == "python3 tid 4242" for l in lines), lines[0]
assert [ [x.encode() for x in l] for l in lines] == sorted([x.encode() for x in l] for l in lines)
# By step: the second frame is the step, and each step's ops sum to its share.
steps = {l.split(";")[1] for l in open("steps.folded")}
assert steps == {"ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"} | ({"[outside steps]"} & steps), steps
PY

# Wall share: ops share each busy instant, idle time by cause; per device
# the graph sums to the window gaps reports, its ops to the busy time.
expect_rc 0 "$GPUPROF" flame --wall a.gpz
mv out wall.folded
expect_rc 0 "$GPUPROF" gaps --format json --min-gap 0 a.gpz
mv out gaps.json
python3 - <<'PY' || fail "wall-share weights do not add up"
import json
t = json.load(open("gaps.json"))["totals"]
lines = [l.rsplit(" ", 1) for l in open("wall.folded")]
assert sum(int(c) for _, c in lines) == t["window_ns"]
assert sum(int(c) for s, c in lines if ";[GPU idle];" not in s) == t["busy_ns"]
assert sum(int(c) for s, c in lines if ";[GPU idle];" in s) == t["idle_ns"]
PY

# Filters: a kernel regex keeps exactly the matching leaves.
expect_rc 0 "$GPUPROF" flame --kernel 'gemm' a.gpz
grep -v gemm out && fail "--kernel kept other leaves"
[ "$(grep -c gemm out)" = "$(grep gemm all.folded | wc -l)" ] || fail "--kernel lost gemm stacks"
expect_rc 0 "$GPUPROF" flame --nvtx '^forward$' a.gpz
grep -v ';forward;' out && fail "--nvtx kept ops outside forward"
[ -s out ] || fail "--nvtx kept nothing"
expect_rc 0 "$GPUPROF" flame --device 1 --no-nvtx a.gpz
[ -s out ] || fail "--device 1 kept nothing"
expect_rc 0 "$GPUPROF" flame -o x.folded a.gpz
cmp x.folded all.folded || fail "-o differs from stdout"

# Usage errors exit 2, unreadable input 1, each with one line on stderr.
expect_rc 2 "$GPUPROF" flame --kernel '(' a.gpz
grep -q "bad kernel pattern" err || fail "bad regex message: $(cat err)"
expect_rc 2 "$GPUPROF" flame --format pdf a.gpz
expect_rc 2 "$GPUPROF" flame
expect_rc 2 "$GPUPROF" flame a.gpz -- a.gpz
expect_rc 2 "$GPUPROF" flame --diff a.gpz
expect_rc 1 "$GPUPROF" flame --device 9 a.gpz
grep -q "no device 9" err || fail "device message: $(cat err)"
expect_rc 1 "$GPUPROF" flame missing.gpz
[ "$(wc -l <err)" = 1 ] || fail "more than one error line: $(cat err)"
printf 'nonsense here\n' >rules.txt
expect_rc 1 "$GPUPROF" flame --rules rules.txt a.gpz
grep -q "rules.txt: line 1: unknown category 'nonsense'" err || fail "rules message: $(cat err)"
expect_rc 1 "$GPUPROF" flame -o /nonexistent/dir/x.svg a.gpz
exit 0
