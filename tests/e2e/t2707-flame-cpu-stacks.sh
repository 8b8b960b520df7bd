#!/bin/sh
# gpuprof flame --cpu-stacks on a trace recorded with --backtrace through the
# fake CUDA stack: each kernel and copy sits under the CPU call stack of the
# call that launched it (outermost first, symbolized), the weights are the
# same as without stacks, and the SVG and speedscope outputs carry them.
. "$TOP/tests/fakecuda/e2e-lib.sh"
[ -x "$B/tests/bt-prog-fp" ] || { echo "stack test program not built"; exit 77; }

plain "$GPUPROF" record -o bt.gpz --backtrace=16 --backtrace-method=fp -- "$B/tests/bt-prog-fp" 3 \
	>bt.out 2>bt.err || fail "record: $(cat bt.err)"
"$GPUPROF" flame --cpu-stacks bt.gpz >cpu.folded 2>err || fail "flame --cpu-stacks: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
"$GPUPROF" flame bt.gpz >plain.folded || fail "flame"
"$GPUPROF" flame --api --cpu-stacks --no-nvtx bt.gpz >api.folded || fail "flame --api"
"$GPUPROF" flame --cpu-stacks -o bt.svg bt.gpz || fail "svg"
"$GPUPROF" flame --cpu-stacks -o bt.json bt.gpz || fail "speedscope"

python3 - <<'PY' || fail "CPU stacks in the flame graph"
import json, re
import xml.etree.ElementTree as ET
def lines(p):
    out = []
    for l in open(p):
        st, c = l[:-1].rsplit(" ", 1)
        out.append((st.split(";"), int(c)))
    return out
cpu, plain, api = lines("cpu.folded"), lines("plain.folded"), lines("api.folded")
chain = ["main", "bt_level1", "bt_level2", "bt_level3", "bt_launch", "sim_launch"]
copy = ["main", "ns::Worker::copy(int)", "sim_memcpy"]
def has(st, seq):
    return any(st[i:i + len(seq)] == seq for i in range(len(st)))
# The same GPU ops with the same weights: only the frames between thread and leaf differ.
assert sorted((s[-1], c) for s, c in cpu) == sorted((s[-1], c) for s, c in plain)
assert sum(c for _, c in cpu) == sum(c for _, c in plain)
kern = [s for s, c in cpu if not s[-1].startswith("[CUDA")]
assert any(has(s, chain) for s in kern), kern
# Frames run outermost first: main comes before the launch wrapper.
for s in kern:
    if "main" in s:
        assert s.index("main") < s.index("sim_launch"), s
copies = [s for s, c in cpu if s[-1].startswith("[CUDA memcpy")]
assert copies and all(has(s, copy) for s in copies), copies
# 41 nested calls were cut at 16 frames, keeping the innermost.
deep = [s for s in kern if "bt_recurse" in s]
assert deep and all("main" not in s for s in deep), deep
assert any(s[-1] == "cudaLaunchKernel" and has(s, chain) for s, c in api), api
assert any(s[-1] == "cudaMemcpy" and has(s, copy) for s, c in api), api
titles = [g.find("{http://www.w3.org/2000/svg}title").text for g in
          ET.parse("bt.svg").getroot().find(".//{http://www.w3.org/2000/svg}g[@id='frames']")]
assert any(t.startswith("bt_level2 (") for t in titles)
names = {f["name"] for f in json.load(open("bt.json"))["shared"]["frames"]}
assert {"bt_level3", "ns::Worker::copy(int)"} <= names
PY
exit 0
