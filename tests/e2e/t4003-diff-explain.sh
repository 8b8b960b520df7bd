#!/bin/sh
# gpuprof diff explains: generated pairs whose truth is known. A data-loading
# stall removed -> FASTER, the top cause data loading on the critical path paired
# with data-loading idle; one kernel family slowed -> SLOWER (exit 3), the top
# cause kernel time, the family first among the kernel-level changes; the same
# runs on both sides -> NO MATERIAL CHANGE. Text, Markdown, JSON and JUnit say
# the same first line. flame --diff of two runs whose OS thread ids differ
# matches the threads by role: every stack unchanged.
. "$TOP/tests/e2e/lib.sh"

gen() { # OUT SEED [extra tracegen options]
	out=$1
	seed=$2
	shift 2
	"$TRACEGEN" --seed "$seed" --steps 6 --kernels 32 --copies 2 --nvtx-depth 1 --same-kernels \
		--step-jitter 0.02 --run-jitter 0.005 "$@" -o "$out" >/dev/null || fail "tracegen $out"
}
for i in 1 2 3 4 5; do
	gen stall$i.gpz $i --load-ns 3000000
	gen base$i.gpz $((i + 50))
	gen slow$i.gpz $((i + 100)) --slow-kernel 'flash_bwd=1.5'
done
STALL="stall1.gpz stall2.gpz stall3.gpz stall4.gpz stall5.gpz"
BASE="base1.gpz base2.gpz base3.gpz base4.gpz base5.gpz"
SLOW="slow1.gpz slow2.gpz slow3.gpz slow4.gpz slow5.gpz"

# gate_line: the gate's line, after the first line (which the text may wrap, indented).
gate_line() {
	awk 'NR > 1 && !/^  /{print; exit}' out
}

# first_line_agrees FILE.json FILE.xml FILE.md: the headline is one sentence everywhere.
first_line_agrees() {
	python3 - "$1" "$2" "$3" <<'PY' || fail "outputs disagree on the first line ($1)"
import json, sys, xml.etree.ElementTree as ET
j = json.load(open(sys.argv[1]))["explain"]
text = open("out").read().split("\n")
# the text wraps long lines with a two-space indent: join the first paragraph
first = text[0]
for l in text[1:]:
    if not l.startswith("  "):
        break
    first += " " + l[2:]
assert first == j["headline"], (first, j["headline"])
props = {p.get("name"): p.get("value") for p in ET.parse(sys.argv[2]).iter("property")}
assert props["headline"] == j["headline"] and props["direction"] == j["direction"], props
md = open(sys.argv[3]).read()
w = j["headline"].split(" ", 1)
assert ("**%s** %s" % (w[0], w[1])).replace("NO **MATERIAL", "**NO MATERIAL") in md or \
    j["headline"].replace("NO MATERIAL CHANGE", "**NO MATERIAL CHANGE**") in md, md[:300]
PY
}

# 1. Without the stall the candidate is faster, and data loading is why.
expect_rc 0 "$GPUPROF" diff --json f.json --junit f.xml --markdown f.md $STALL -- $BASE
[ -s err ] && fail "unexpected stderr: $(cat err)"
head -n 1 out | grep -q '^FASTER per step: -3\.' || fail "stall removed: $(head -n 1 out)"
grep -q '^  data-loading idle fell by .*most of the step-time change' out ||
	fail "no data-loading cause: $(sed -n 3,5p out)"
first_line_agrees f.json f.xml f.md
python3 - <<'PY' || fail "stall JSON"
import json
d = json.load(open("f.json"))
e = d["explain"]
assert e["direction"] == "faster" and e["per"] == "step" and e["ranked_by"] == "share", e
# 3 ms of loading per step removed: the step falls by about that much
assert -3.3e6 < e["change_ns"] < -2.7e6, e["change_ns"]
top = e["causes"][0]
assert top["metric"] == "path.data-loading" and top["idle"] == "idle.data-loading", top
assert top["share"] > 0.9 and top["verdict"] == "improved", top
# the causes add up to the path's change
assert abs(sum(c["delta_ns"] for c in e["causes"]) - e["path_change_ns"]) < 1
assert abs(e["path_change_ns"] - e["change_ns"]) < 0.1 * abs(e["change_ns"])
# no kernel got slower or faster
assert not [k for k in e["kernel_changes"] if k["metric"].startswith("kernel.")], e["kernel_changes"]
PY

# --no-causes skips the critical path: the same first line, no causes, no path metrics.
head -n 1 out >with-causes
expect_rc 0 "$GPUPROF" diff --no-causes --json nc.json $STALL -- $BASE
head -n 1 out | cmp -s - with-causes || fail "--no-causes first line: $(head -n 1 out)"
grep -q '^Why' out && fail "--no-causes printed causes"
python3 - <<'PY' || fail "--no-causes JSON"
import json
d = json.load(open("nc.json"))
assert not [m for m in d["metrics"] if m["name"].startswith("path.")]
assert d["explain"]["causes"] == [] and d["explain"]["direction"] == "faster"
PY

# Under a small Markdown cap the first line stays and the causes give way.
expect_rc 0 "$GPUPROF" diff -q --markdown cap.md --markdown-max 1000 $STALL -- $BASE
[ "$(wc -c <cap.md)" -le 1000 ] || fail "markdown over its cap: $(wc -c <cap.md)"
grep -q '^\*\*FASTER\*\* per step' cap.md || fail "capped markdown lost the first line"

# The same comparison the other way round: slower, and the gate fails on it.
expect_rc 3 "$GPUPROF" diff --json r.json $BASE -- $STALL
head -n 1 out | grep -q '^SLOWER per step: +3\.' || fail "stall added: $(head -n 1 out)"
gate_line | grep -q '^REGRESSION: 1 gated metric regressed: step.wall' || fail "gate line"
grep -q '^  data-loading idle rose by ' out || fail "no data-loading cause (slower)"

# 2. One kernel family 1.5x slower: slower, kernel time is the top cause.
expect_rc 3 "$GPUPROF" diff --json s.json --junit s.xml --markdown s.md $BASE -- $SLOW
head -n 1 out | grep -q '^SLOWER per step: +' || fail "slow kernels: $(head -n 1 out)"
first_line_agrees s.json s.xml s.md
python3 - <<'PY' || fail "slow-kernel JSON"
import json
e = json.load(open("s.json"))["explain"]
assert e["direction"] == "slower" and 0.06 < e["change_ns"] / 6.7e6 < 0.2, e
assert e["causes"][0]["metric"] == "path.kernel" and e["causes"][0]["share"] > 0.5, e["causes"][0]
k = e["kernel_changes"][0]
assert k["metric"] == "kernel.flash::flash_bwd_kernel_bf16_hdim128" and k["verdict"] == "regressed", k
assert not [c for c in e["causes"] if c.get("idle") == "idle.data-loading"]
PY
# Gating only step.wall's neighbours: slower, but the gate passes and says so.
expect_rc 0 "$GPUPROF" diff --fail-on gpu.busy --threshold 'gpu.busy=50' $BASE -- $SLOW
head -n 1 out | grep -q '^SLOWER per step' || fail "ungated: $(head -n 1 out)"
gate_line | grep -qx 'No regression in the gated metrics (step.wall is not gated).' ||
	fail "ungated gate line: $(gate_line)"

# A path category can be gated like any metric; a misspelt one is refused.
expect_rc 3 "$GPUPROF" diff --fail-on path.kernel $BASE -- $SLOW
gate_line | grep -q '^REGRESSION: 1 gated metric regressed: path.kernel +' ||
	fail "path.kernel gate: $(gate_line)"
expect_rc 2 "$GPUPROF" diff --fail-on path.kernal $BASE -- $SLOW
grep -q 'path.kernel' err || fail "refused pattern lists no path metric: $(cat err)"

# 3. The same runs on both sides: no material change, nothing to explain.
expect_rc 0 "$GPUPROF" diff --json n.json --junit n.xml --markdown n.md $BASE -- $BASE
head -n 1 out | grep -q '^NO MATERIAL CHANGE per step: +0 ns (+0.00%)' ||
	fail "identical runs: $(head -n 1 out)"
grep -q '^  nothing material moved on the critical path\.' out || fail "identical: causes"
first_line_agrees n.json n.xml n.md
python3 - <<'PY' || fail "identical JSON"
import json
e = json.load(open("n.json"))["explain"]
assert e["direction"] == "no material change" and e["ranked_by"] == "size", e
assert all(c["delta_ns"] == 0 for c in e["causes"]) and not e["kernel_changes"], e
PY

# 4. flame --diff: two runs of one program whose threads have other OS ids
# (Kineto names them "thread TID (python3)") match by role: main thread
# first to launch, side thread second; nothing changed.
python3 - <<'PY' || fail "kineto runs"
import json
def run(path, pid, main, side):
    ev = []
    for t, name in ((main, "thread %d (python3)" % main), (side, "thread %d (python3)" % side)):
        ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": t, "args": {"name": name}})
    corr = 1
    for step in range(3):
        base = 1000 + step * 1000
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step,
                   "pid": pid, "tid": main, "ts": base, "dur": 900})
        for tid, off, kern, dur in ((main, 10, "void fwd_kernel(float*)", 100),
                                    (side, 400, "void bwd_kernel(float*)", 200)):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid,
                       "tid": tid, "ts": base + off, "dur": 5, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": kern, "pid": 0, "tid": 7,
                       "ts": base + off + 20, "dur": dur,
                       "args": {"device": 0, "stream": 7, "correlation": corr}})
            corr += 1
    json.dump({"traceEvents": ev}, open(path, "w"))
run("k1.json", 100, 111, 222)
run("k2.json", 300, 333, 444)
PY
expect_rc 0 "$GPUPROF" flame --diff k1.json -- k2.json
[ -s err ] && fail "flame stderr: $(cat err)"
python3 - <<'PY' || fail "flame --diff by role: $(cat out)"
lines = open("out").read().split("\n")[:-1]
assert lines, "no stacks"
for l in lines:
    st, b, a = l.rsplit(" ", 2)
    assert b == a and int(b) > 0, l
    for tid in ("111", "222", "333", "444"):
        assert tid not in st, l
assert any(";thread (python3) main;" in l and "fwd_kernel" in l for l in lines), lines
assert any(";thread (python3) side 1;" in l and "bwd_kernel" in l for l in lines), lines
PY
exit 0
