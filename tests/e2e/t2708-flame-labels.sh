#!/bin/sh
# Flame graph labels (SVG, and so the HTML page's flame graph) show the part of
# a kernel name that tells it apart: no leading "void ", the parameter list and
# then the namespaces dropped before anything is cut, a cut after a word with "..".
. "$TOP/tests/e2e/lib.sh"

cat >k.json <<'JSON'
{"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000, "dur": 900},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1010, "dur": 5, "args": {"correlation": 11}},
  {"ph": "X", "cat": "kernel", "name": "void cudnn::detail::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, float*)", "pid": 0, "tid": 7, "ts": 1020, "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 11}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1100, "dur": 5, "args": {"correlation": 12}},
  {"ph": "X", "cat": "kernel", "name": "void cudnn::detail::bn_bw_1C11_singleread_kernel<float, float, 512, true>(float, float, cudnnTensorStruct)", "pid": 0, "tid": 7, "ts": 1400, "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 12}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1110, "dur": 5, "args": {"correlation": 13}},
  {"ph": "X", "cat": "kernel", "name": "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>(int, float, float const*)", "pid": 0, "tid": 7, "ts": 1750, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 13}}
 ]}
JSON
expect_rc 0 "$GPUPROF" flame --format svg -o k.svg k.json
python3 - <<'PY' || fail "labels"
import html, re
s = open("k.svg", encoding="utf-8").read()
pairs = [(html.unescape(t).rsplit(" (", 1)[0], html.unescape(l)) for t, l in
         re.findall(r"<title>([^<]*)</title>.*?<text[^>]*>([^<]*)</text>", s, re.S)]
kern = [(t, l) for t, l in pairs if t.startswith("void ")]
assert len(kern) == 3, pairs
for t, l in kern:
    assert l, ("no label on a wide frame", t)
    assert not l.startswith("void"), l
    cut = l.endswith("..")
    body = l[:-2] if cut else l
    assert body in t, (l, t)
    if cut:
        # cut after a word, not in the middle of one
        assert body[-1] in "_:<, ", (l, t)
    # a label that had to be cut starts with the own name, not the namespaces
    assert not cut or not body.startswith(("cudnn::", "at::")), (l, t)
labels = [l for _, l in kern]
assert len(set(labels)) == 3, labels
assert any(l.endswith("..") for l in labels), ("no label was cut: the test needs a narrow frame", labels)
assert any("bn_fw_tr" in l for l in labels) and any("bn_bw" in l for l in labels), labels
PY
exit 0
