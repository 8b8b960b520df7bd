#!/bin/sh
# gpuprof ops on real PyTorch profiler traces that carry shapes (TraceLens
# anchors): FLOPs of their GEMMs, attention and convolutions as worked out
# by hand from the recorded inputs; and every Kineto anchor runs without error.
. "$TOP/tests/e2e/lib.sh"
need_anchors kineto/tracelens/torch_compile_triton/trace.json.gz \
	kineto/tracelens/mi300_resnet_act_checkpoint/resnet_act_checkpoint.json.gz

expect_rc 0 "$GPUPROF" ops --format json --top all \
	"$ANCHORS/kineto/tracelens/torch_compile_triton/trace.json.gz"
python3 - <<'PY' || fail "torch_compile_triton"
import json
d = json.load(open("out"))
def find(name, dims):
    for r in d["by_inputs"]:
        if r["Operator"] == name and "D=" + dims in r["Inputs"]:
            return r
    raise AssertionError((name, dims))
# aten::mm [32768,2048] x [2048,8192] (bf16): 2·32768·2048·8192 = 1099511627776 FLOPs
r = find("aten::mm", "[[32768,2048],[2048,8192],[32768,8192]]")
assert r["GFLOPs"] == 1099.512 and r["Model"] == "gemm", r
# its out= tensor is the output: (32768·2048 + 2048·8192 + 32768·8192)·2 = 704643072 B
assert r["Data Moved (MB)"] == 704.643, r
# [32768,2048] x [2048,2048]: 274877906944, four calls
r = find("aten::mm", "[[32768,2048],[2048,2048],[32768,2048]]")
assert r["GFLOPs"] == 274.878 and r["Calls"] == 4, r
# flash attention, [B,L,H,E] = [8,4096,16,128], is_causal False:
# 2·8·16·4096·4096·(128+128) = 1099511627776
r = find("aten::_flash_attention_forward", "[[8,4096,16,128],[8,4096,16,128]")
assert r["GFLOPs"] == 1099.512 and r["Model"] == "attention", r
# Triton kernels named by the compiler: time only
t = [r for r in d["by_inputs"] if r["Operator"].startswith("triton_")]
assert t and all(r["GFLOPs"] is None for r in t), t
PY

expect_rc 0 "$GPUPROF" ops --format json --top all \
	"$ANCHORS/kineto/tracelens/mi300_resnet_act_checkpoint/resnet_act_checkpoint.json.gz"
python3 - <<'PY' || fail "mi300 resnet"
import json
d = json.load(open("out"))
names = {r["Operator"]: r for r in d["by_name"]}
# the convolutions' kernels belong to the leaf aten::miopen_convolution, not to
# aten::conv2d / aten::convolution / aten::_convolution above it
assert "aten::miopen_convolution" in names, list(names)
for n in ("aten::conv2d", "aten::convolution", "aten::_convolution"):
    assert n not in names, n
def find(name, dims):
    for r in d["by_inputs"]:
        if r["Operator"] == name and "D=" + dims in r["Inputs"]:
            return r
    raise AssertionError((name, dims))
# miopen_convolution(input [10,256,14,14], weight [512,256,3,3], padding [1,1],
# stride [2,2]): output 7x7; 2·10·512·49·256·9 = 1156055040 FLOPs
r = find("aten::miopen_convolution", "[[10,256,14,14],[512,256,3,3]")
assert r["GFLOPs"] == 1.156 and r["Model"] == "conv", r
# aten::mm [10,1000] x [1000,512]: 2·10·1000·512 = 10240000
r = find("aten::mm", "[[10,1000],[1000,512]]")
assert r["GFLOPs"] == 0.01 and r["Model"] == "gemm", r
PY

# Every Kineto anchor: no error, no crash, and a note when nothing is modelled.
for f in $(find "$ANCHORS/kineto" -name '*.json*' | LC_ALL=C sort | anchor_sweep); do
	expect_rc 0 "$GPUPROF" ops --format json "$f"
	python3 -c 'import json,sys; json.load(open("out"))' || fail "$f: JSON"
done
