#!/bin/sh
# Repeated layers in the flame graph: 36 NVTX frames named alike but for their
# numbers, each with the same stack below, become one frame with their summed
# time under --merge-layers and on the HTML page (by default; --keep-layers keeps
# them apart); a layer of another shape stays apart; plain `flame` is unchanged.
. "$TOP/tests/e2e/lib.sh"

python3 - <<'PY' || fail "trace"
import json
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 0, "dur": 100000}]
t, corr = 10, 1
def layer(i, kernels):
    global t, corr
    ev.append({"ph": "X", "cat": "user_annotation", "name": "nn.Module: DecoderLayer_%d" % i,
               "pid": 7, "tid": 7, "ts": t, "dur": 2000})
    for k, name in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7,
                   "ts": t + 10 + k * 500, "dur": 5, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t + 20 + k * 500,
                   "dur": 300 + i, "args": {"device": 0, "stream": 7, "correlation": corr}})
        corr += 1
    t += 2500
for i in range(36):
    layer(i, ["attn_kernel", "mlp_kernel"])
layer(36, ["other_kernel"])
json.dump({"schemaVersion": 1, "traceEvents": ev}, open("layers.json", "w"))
PY
expect_rc 0 "$GPUPROF" flame layers.json
cp out plain.folded
expect_rc 0 "$GPUPROF" flame --merge-layers layers.json
cp out merged.folded
expect_rc 0 "$GPUPROF" report --format html -o page.html layers.json
expect_rc 0 "$GPUPROF" report --format html --keep-layers -o apart.html layers.json
python3 - <<'PY' || fail "merged layers"
import base64, html, re
def folded(p):
    d = {}
    for line in open(p, encoding="utf-8"):
        stack, w = line.rsplit(" ", 1)
        d[stack] = int(w)
    return d
plain, merged = folded("plain.folded"), folded("merged.folded")
assert len(plain) == 73, len(plain)  # one line per layer and kernel: unchanged
assert sum(plain.values()) == sum(merged.values())
pre = "pid 7;tid 7;ProfilerStep#*;nn.Module: "
want_attn = sum(300 + i for i in range(36)) * 1000
assert merged == {pre + "DecoderLayer_* \u00d736;attn_kernel": want_attn,
                  pre + "DecoderLayer_* \u00d736;mlp_kernel": want_attn,
                  pre + "DecoderLayer_36;other_kernel": 336000}, merged
def frames(p):
    page = open(p, encoding="utf-8").read()
    svg = base64.b64decode(re.search(r'class="gp-flame"[^>]* src="data:image/svg\+xml;base64,([^"]+)"', page).group(1)).decode()
    return [html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", svg)]
m, a = frames("page.html"), frames("apart.html")
assert sum("DecoderLayer_* \u00d736" in t for t in m) == 1, [t for t in m if "Decoder" in t]
assert not any("DecoderLayer_0 " in t for t in m)
assert any("DecoderLayer_0 " in t for t in a) and not any("\u00d736" in t for t in a)
PY
exit 0
