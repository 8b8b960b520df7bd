#!/bin/sh
# Kineto JSON import (import/kineto.c) on every real anchor trace in
# ../shared/anchors/kineto/hta: each must import without error, and the
# records per kind must equal the events counted with python3's json module.
# tests/tools/kineto-drive.c calls the importer and counts what it wrote.
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto/hta
anchors=$ANCHORS/kineto/hta
command -v python3 >/dev/null 2>&1 || exit 77

drv=$BUILD/tests/kineto-drive
[ -x "$drv" ] || fail "missing $drv (build first)"

find "$anchors" -name '*.json.gz' -o -name '*.json' | sort >all
[ "$(wc -l <all)" -ge 20 ] || fail "only $(wc -l <all) anchors found"
for f in $(anchor_sweep <all); do
	"$drv" "$f" out.gpz >got 2>err || fail "import $f: $(cat err)"
	python3 - "$f" >want <<'PY' || fail "python3 could not count $f"
import gzip, json, sys
p = sys.argv[1]
with open(p, "rb") as fh:
    gz = fh.read(2) == b"\x1f\x8b"
d = json.load(gzip.open(p, "rt") if gz else open(p))
cats = {"kernel": 0, "Kernel": 0, "gpu_memcpy": 1, "Memcpy": 1, "gpu_memset": 2, "Memset": 2,
        "cuda_runtime": 3, "Runtime": 3, "cuda_driver": 3, "cpu_op": 4, "Operator": 4,
        "user_annotation": 4, "python_function": 4, "gpu_user_annotation": 4}
n = [0] * 5
for e in d["traceEvents"]:
    if e.get("cat") == "gpu_user_annotation" and e.get("name", "").startswith("ProfilerStep#"):
        continue  # projections of the CPU step ranges: not imported
    if e.get("ph") == "X" and e.get("cat") in cats:
        n[cats[e["cat"]]] += 1
print(*n)
PY
	cmp -s got want || fail "$f: kernel memcpy memset api nvtx: got $(cat got), want $(cat want)"
done

# The imported trace loads in gpuprof.
f=$anchors/nccl_parser_config/nccl_data.json.gz
"$drv" "$f" nccl.gpz >/dev/null || fail "import $f"
expect_rc 0 "$GPUPROF" stats nccl.gpz
exit 0
