#!/bin/sh
# gpuprof stats over several processes: a directory of rank traces loads as
# one model, equal to naming the files; kernels of the same name merge across
# processes and devices, and the GPU trace interleaves them by start.
. "$TOP/tests/e2e/lib.sh"

mkdir run
"$TRACEGEN" --seed 5 --steps 2 --kernels 4 --copies 1 --devices 2 --ranks 2 -o run/rank%r.gpz \
	>/dev/null || fail "tracegen"
"$TRACEGEN" --seed 5 --steps 2 --kernels 4 --copies 1 --devices 2 -o one.gpz >/dev/null ||
	fail "tracegen"

all=cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,cuda_api_sum,nvtx_sum
all=$all,nvtx_gpu_proj_sum,cuda_gpu_trace
expect_rc 0 "$GPUPROF" stats -r "$all" -f csv run
cp out dir.csv
expect_rc 0 "$GPUPROF" stats -r "$all" -f csv run/rank0.gpz run/rank1.gpz
cmp -s dir.csv out || fail "a directory and its files differ"
expect_rc 0 "$GPUPROF" stats -r "$all" -f csv one.gpz
cp out one.csv

python3 - dir.csv one.csv <<'PY' || fail "ranks do not add up"
import csv, io, sys

def tables(path):
    out = {}
    for b in open(path).read().split("\n\n"):
        if b.strip():
            rows = list(csv.reader(io.StringIO(b)))
            out[rows[0][0] + "|" + rows[0][2] + "|" + rows[0][-1]] = rows
    return out

two, one = tables(sys.argv[1]), tables(sys.argv[2])
kern = "Time (%)|Instances|Name"
trace = next(k for k in two if k.startswith("Start (ns)"))
# Two ranks of the same workload: every kernel twice as often, same share.
k2 = {r[8]: r for r in two[kern][1:]}
k1 = {r[8]: r for r in one[kern][1:]}
assert k2.keys() == k1.keys()
for name, r in k1.items():
    assert int(k2[name][2]) == 2 * int(r[2]), name
    assert int(k2[name][1]) == 2 * int(r[1]), name
    assert k2[name][0] == r[0], name
rows = two[trace][1:]
assert len(rows) == 2 * len(one[trace][1:])
starts = [int(r[0]) for r in rows]
assert starts == sorted(starts), "trace not in start order"
assert sum(int(r[2]) for r in two[kern][1:]) == sum(1 for r in rows if not r[20].startswith("["))
assert {r[16] for r in rows} == {"NVIDIA H200 (0)", "NVIDIA H200 (1)"}
PY
exit 0
