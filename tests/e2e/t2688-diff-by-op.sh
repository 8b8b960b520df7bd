#!/bin/sh
# gpuprof diff --by op: kernel time grouped by the leaf PyTorch operator that
# launched it. aten::relu and aten::add launch the same elementwise kernel;
# the candidate slows only aten::add's launches and one of the two shapes of
# aten::mm, and adds aten::gelu. By kernel family the elementwise family
# regresses without saying which operator; by op, op.aten::add regresses and
# op.aten::relu does not; by op-inputs, only the slowed aten::mm shape
# regresses. A run without CPU operators falls back to kernel families with
# a warning.
. "$TOP/tests/e2e/lib.sh"

gen() { # OUT SEED SLOW(0|1)
	python3 - "$@" <<'PY' || fail "cannot write $1"
import json, random, sys
out, seed, slow = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
rnd = random.Random(seed)
bf = "c10::BFloat16"
ev, corr, t = [], [100], 1000 + 997 * seed
def jit(us):
    return us * (1 + rnd.uniform(-0.02, 0.02))
def call(name, dims, kernel, us):
    global t
    corr[0] += 1
    c = corr[0]
    ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": t, "dur": 30,
               "args": {"Input Dims": dims, "Input type": [bf] * len(dims),
                        "Concrete Inputs": [""] * len(dims)}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
               "tid": 1, "ts": t + 5, "dur": 10, "args": {"correlation": c}})
    ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": t + 20,
               "dur": round(jit(us), 3), "args": {"device": 0, "stream": 7, "correlation": c}})
    t += 40 + us
for step in range(8):
    t0 = t
    call("aten::mm", [[1024, 1024], [1024, 1024]], "gemm_kernel", 50)
    call("aten::mm", [[2048, 1024], [1024, 1024]], "gemm_kernel", 90 * (1.5 if slow else 1))
    call("aten::relu", [[1024, 1024]], "vectorized_elementwise_kernel", 20)
    call("aten::add", [[1024, 1024], [1024, 1024]], "vectorized_elementwise_kernel",
         30 * (1.6 if slow else 1))
    if slow:
        call("aten::gelu", [[1024, 1024]], "gelu_kernel", 5)
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 1,
               "tid": 1, "ts": t0 - 1, "dur": t - t0 + 2})
    t += 20
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(out, "w"))
PY
}
for i in 1 2 3 4; do
	gen a$i.json $i 0
	gen b$i.json $((i + 50)) 1
done
A="a1.json a2.json a3.json a4.json"
B="b1.json b2.json b3.json b4.json"

verdicts() { # JSON FILE -> "name=verdict" lines of the kernel and operator rows, sorted
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in sorted(d["metrics"], key=lambda m: m["name"]):
    if m["name"].startswith(("kernel.", "op.")):
        print("%s=%s" % (m["name"], m["verdict"]))
print("new=" + ",".join(d["new_kernels"]))
PY
}

# By kernel family (the default): one elementwise family, slowed as a whole.
expect_rc 3 "$GPUPROF" diff --json k.json $A -- $B
verdicts k.json >kv || fail "verdicts"
grep -qx "kernel.vectorized_elementwise_kernel=regressed" kv || fail "by kernel: $(cat kv)"
grep -q "^op\." kv && fail "op rows without --by op: $(cat kv)"

# By operator: the slowed operators are named, the others unchanged.
expect_rc 3 "$GPUPROF" diff --by op --json o.json $A -- $B
[ -s err ] && fail "unexpected stderr: $(cat err)"
grep -q "op.aten::add .*regressed" out || fail "table: $(cat out)"
verdicts o.json >ov || fail "verdicts"
cat >ov.want <<'W'
op.aten::add=regressed
op.aten::mm=regressed
op.aten::relu=unchanged
new=op.aten::gelu
W
cmp -s ov ov.want || fail "by op: $(cat ov)"
# The first line: the slowed operators make the step slower; they lead the
# kernel-level changes (by operator), the unchanged relu is not among them.
head -n 1 out | grep -q '^SLOWER per step: +' || fail "first line: $(head -n 1 out)"
python3 - <<'PY' || fail "by op: kernel-level changes"
import json
e = json.load(open("o.json"))["explain"]
assert e["direction"] == "slower", e
assert [k["metric"] for k in e["kernel_changes"]] == ["op.aten::mm", "op.aten::add"], e
PY

# By operator and inputs: only the slowed shape of aten::mm.
expect_rc 3 "$GPUPROF" diff --by op-inputs --json i.json $A -- $B
verdicts i.json >iv || fail "verdicts"
grep -q '^op.aten::mm (D=\[\[2048,1024\],\[1024,1024\]\].*)=regressed$' iv || fail "inputs: $(cat iv)"
grep -q '^op.aten::mm (D=\[\[1024,1024\],\[1024,1024\]\].*)=unchanged$' iv || fail "inputs: $(cat iv)"
grep -q '^op.aten::relu (.*)=unchanged$' iv || fail "inputs: $(cat iv)"
# A gate on operators: op.aten::relu alone passes, op.aten::add fails.
expect_rc 0 "$GPUPROF" diff --by op --fail-on 'op.aten::relu' $A -- $B
expect_rc 3 "$GPUPROF" diff --by op --fail-on 'op.aten::add' $A -- $B

# Traces without CPU operators: kernel families, and a warning says why.
"$TRACEGEN" --seed 1 --steps 6 --kernels 8 -o g1.gpz >/dev/null || fail tracegen
"$TRACEGEN" --seed 2 --steps 6 --kernels 8 -o g2.gpz >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" diff --by op --json g.json g1.gpz -- g2.gpz
python3 - <<'PY' || fail "fallback"
import json
d = json.load(open("g.json"))
assert not [m for m in d["metrics"] if m["name"].startswith("op.")], d["metrics"]
assert [m for m in d["metrics"] if m["name"].startswith("kernel.")], d["metrics"]
w = [x for x in d["warnings"] if "no CPU operators" in x]
assert len(w) == 2 and w[0].startswith("g1.gpz: ") and "compared by kernel family" in w[0], w
PY

expect_rc 2 "$GPUPROF" diff --by nope $A -- $B
grep -q "by" err || fail "usage message: $(cat err)"
printf 'by op\n' >c.cfg
expect_rc 3 "$GPUPROF" diff --config c.cfg --json c.json $A -- $B
verdicts c.json | cmp -s - ov.want || fail "by op from a config file"
