#!/bin/sh
# gpuprof ops on a PyTorch profiler trace whose operators record their strides
# ("Input Strides"): a transposed convolution in channels_last through cuDNN's
# own argument order and its backward, the .contiguous() copy of its input, and
# an add whose second operand is an expand view (stride 0). FLOPs and bytes as
# worked out by hand below, through the importer's signatures (docs/ops.md).
. "$TOP/tests/e2e/lib.sh"

python3 - >k.json <<'PY'
import json
bf = "c10::BFloat16"
ev = []
def op(name, ts, dims, types, strides, conc, corr, kname):
    ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
               "dur": 90, "args": {"Input Dims": dims, "Input type": types,
                                   "Input Strides": strides, "Concrete Inputs": conc}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
               "tid": 1, "ts": ts + 10, "dur": 5, "args": {"correlation": corr}})
    ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7,
               "ts": ts + 20, "dur": 50, "args": {"device": 0, "stream": 7,
               "correlation": corr, "grid": [1, 1, 1], "block": [128, 1, 1]}})
x = [8, 64, 32, 32]; x_nhwc = [65536, 1, 2048, 64]
w = [64, 32, 3, 3]; w_nhwc = [288, 1, 96, 32]
g = [8, 32, 64, 64]; g_nhwc = [131072, 1, 2048, 32]
# cudnn_convolution_transpose(self, weight, padding, output_padding, stride, dilation,
# groups, benchmark, deterministic, allow_tf32)
op("aten::cudnn_convolution_transpose", 100, [x, w] + [[]] * 8,
   [bf, bf] + ["ScalarList"] * 4 + ["Scalar"] * 4, [x_nhwc, w_nhwc] + [[]] * 8,
   ["", "", "[1, 1]", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False", "True"], 1,
   "dgrad_nhwc")
# x.contiguous(): copy_(dst NCHW, src channels_last)
op("aten::copy_", 200, [x, x, []], [bf, bf, "Scalar"], [[65536, 1024, 32, 1], x_nhwc, []],
   ["", "", "False"], 2, "copy_kernel")
# add of a [4096,1024] and a row expanded to it (strides [0, 1])
op("aten::add", 300, [[4096, 1024], [4096, 1024], []], ["float", "float", "Scalar"],
   [[1024, 1], [0, 1], []], ["", "", "1"], 3, "add_kernel")
# convolution_backward of the transposed convolution
op("aten::convolution_backward", 400, [g, x, w] + [[]] * 8,
   [bf, bf, bf] + ["ScalarList"] * 4 + ["Scalar", "ScalarList", "Scalar", "ScalarList"],
   [g_nhwc, x_nhwc, w_nhwc] + [[]] * 8,
   ["", "", "", "[32]", "[2, 2]", "[1, 1]", "[1, 1]", "True", "[1, 1]", "1",
    "[True, True, True]"], 4, "wgrad_nhwc")
print(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0,
      "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640, "computeMajor": 9,
      "computeMinor": 0, "numSms": 132}], "traceEvents": ev}))
PY

expect_rc 0 "$GPUPROF" ops --format json --top all k.json
[ -s err ] && fail "stderr: $(cat err)"
python3 - <<'PY' || fail "ops"
import json
d = json.load(open("out"))
r = {x["operator"]: x for x in d["by_name"]}
# transposed: in [8,64,32,32], w [64,32,3,3] (C_in 64, C_out 32), stride 2, pad 1,
# output_padding 1: out (32-1)·2 - 2 + 2 + 1 + 1 = 64; FLOPs of the forward convolution
# from [8,32,64,64] back to the input: 2·8·64·1024·32·9 = 301989888; bytes as NCHW:
# (524288 + 18432 + 8·32·64·64) · 2 = 3182592
c = r["aten::cudnn_convolution_transpose"]
assert c["model"] == "conv" and c["gflop"] == 0.302 and c["data_moved_mb"] == 3.183, c
# the copy reads and writes the tensor: 2 · 524288 · 2 B
c = r["aten::copy_"]
assert c["model"] == "copy" and c["data_moved_mb"] == 2.097, c
# the expanded row is read once: (4194304 + 1024 + 4194304) · 4 = 33558528 B
c = r["aten::add"]
assert c["model"] == "binary" and c["data_moved_mb"] == 33.559, c
assert c["gflop"] == 0.004, c
# backward: grad_input and grad_weight one forward each, grad_bias 1048576 adds:
# 2·301989888 + 1048576 = 605028352; grad_out read once (2097152), the weight read and
# grad_input written (36864 + 1048576), the input read and grad_weight written
# (1048576 + 36864), grad_bias 32 · 2: 4268096 B
c = r["aten::convolution_backward"]
assert c["model"] == "conv" and c["gflop"] == 0.605 and c["data_moved_mb"] == 4.268, c
assert d["implausible"] is None, d["implausible"]
assert d["totals"]["gpu_modelled_ns"] == d["totals"]["gpu_ns"] == 200000, d["totals"]
PY
