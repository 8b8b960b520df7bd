#!/bin/sh
# Options spelled the same across commands: --kernel-name (flame keeps --names
# as a hidden alias) and --top N|all wherever --top exists.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 30 -o a.gpz >/dev/null || fail "tracegen"

expect_rc 0 "$GPUPROF" flame --kernel-name short a.gpz
mv out new.folded
expect_rc 0 "$GPUPROF" flame --names short a.gpz
cmp -s out new.folded || fail "flame --names and --kernel-name differ"
grep -q 'gemm_kernel_128x128 [0-9]' new.folded || fail "short names: $(head -3 new.folded)"
expect_rc 2 "$GPUPROF" flame --kernel-name nosuch a.gpz
grep -q "unknown kernel-name mode 'nosuch'" err || fail "bad mode: $(cat err)"
expect_rc 0 "$GPUPROF" flame --help
grep -q -- '--kernel-name' out || fail "flame help lacks --kernel-name"
grep -q -- '--names' out && fail "flame help still shows --names"

# --top all: every kernel in the report, as many as stats lists.
expect_rc 0 "$GPUPROF" stats --report cuda_gpu_kern_sum --format csv a.gpz
nk=$(($(wc -l <out) - 1))
[ "$nk" -gt 10 ] || fail "only $nk kernels"
expect_rc 0 "$GPUPROF" report --format json --top all a.gpz
mv out all.json
expect_rc 0 "$GPUPROF" report --format json --top 3 a.gpz
python3 - "$nk" <<'PY' || fail "report --top all"
import json, sys
def kernels(d):
    for k, v in d.items():
        if "kernel" in k.lower() and isinstance(v, list) and v and isinstance(v[0], dict):
            return v
    raise SystemExit("no kernel list in %s" % list(d))
a = kernels(json.load(open("all.json")))
t = kernels(json.load(open("out")))
assert len(t) == 3, len(t)
assert len(a) == int(sys.argv[1]), (len(a), sys.argv[1])
PY
for cmd in report gaps occupancy; do
	expect_rc 2 "$GPUPROF" $cmd --top lots a.gpz
done
exit 0
