#!/bin/sh
# Text output fits 120 columns (counted in characters: "µ" and "…" are one
# each) when not on a terminal: every command that prints text, on generated
# traces and on real ones with long kernel names; --wide prints names whole.
. "$TOP/tests/e2e/lib.sh"

unset COLUMNS
"$TRACEGEN" --seed 5 --steps 6 --kernels 40 --copies 2 --streams 2 --gap-ns 500000 \
	-o gen.gpz >/dev/null || fail tracegen

need_anchors kineto/tracelens nsys
inputs="gen.gpz"
for a in kineto/tracelens/vllm_decode_full/graph_execution.json.gz \
	kineto/tracelens/torch_compile_triton/trace.json.gz \
	kineto/hta/negative_queue_length_values_check/rank0.json.gz \
	nsys/mfu_2gpu_before.sqlite; do
	have_anchors "$a" && inputs="$inputs $ANCHORS/$a"
done

check_width() { # WHAT FILE
	python3 - "$1" "$2" <<'PY' || fail "$1: a line is wider than 120 columns"
import sys
what, path = sys.argv[1], sys.argv[2]
for n, line in enumerate(open(path, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if len(line) > 120:
        print(f"{what}: line {n} has {len(line)} columns: {line[:140]}")
        sys.exit(1)
PY
}

for f in $inputs; do
	for cmd in report gaps stats occupancy comm mfu breakdown info critical-path; do
		"$GPUPROF" $cmd "$f" >out 2>err
		rc=$?
		[ $rc -le 1 ] || fail "$cmd $f: exit $rc: $(cat err)"
		check_width "$cmd $(basename "$f")" out
	done
done
expect_rc 0 "$GPUPROF" diff gen.gpz -- gen.gpz
check_width "diff" out

# The long names of the vLLM trace: shortened in text, whole with --wide and in CSV.
f=$ANCHORS/kineto/tracelens/vllm_decode_full/graph_execution.json.gz
if have_anchors kineto/tracelens/vllm_decode_full/graph_execution.json.gz; then
	expect_rc 0 "$GPUPROF" report --top 20 "$f"
	cp out narrow
	expect_rc 0 "$GPUPROF" report --top 20 --wide "$f"
	python3 - narrow out <<'PY' || fail "--wide does not widen the kernel names"
import sys
narrow = max(len(l) for l in open(sys.argv[1], encoding="utf-8"))
wide = max(len(l) for l in open(sys.argv[2], encoding="utf-8"))
assert wide > 120 >= narrow - 1, (narrow, wide)
assert "\u2026" in open(sys.argv[1], encoding="utf-8").read()
PY
	expect_rc 0 "$GPUPROF" stats --report cuda_gpu_kern_sum --format csv "$f"
	grep -q '…' out && fail "CSV names are shortened"
fi
exit 0
