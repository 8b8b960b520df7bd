#!/bin/sh
# gpuprof diff on generated runs: a candidate with one kernel family slowed
# regresses (exit 3) and the family is named; an A/A pair passes (exit 0);
# golden text, Markdown and JUnit (validated against tests/junit.xsd);
# config files, rules, the Markdown cap, directories of rank traces and
# the usage and input errors.
. "$TOP/tests/e2e/lib.sh"

gen() { # OUT SEED [extra tracegen options]
	out=$1
	seed=$2
	shift 2
	"$TRACEGEN" --seed "$seed" --steps 6 --kernels 32 --copies 2 --nvtx-depth 1 --same-kernels \
		--step-jitter 0.02 --run-jitter 0.005 "$@" -o "$out" >/dev/null || fail "tracegen $out"
}
for i in 1 2 3 4 5; do
	gen a$i.gpz $i
	gen c$i.gpz $((i + 50))
	gen b$i.gpz $((i + 100)) --slow-kernel 'flash_bwd=1.5'
done

# A/B: step time and the slowed family regress; exit 3.
expect_rc 3 "$GPUPROF" diff --junit j.xml --markdown m.md --json d.json \
	a1.gpz a2.gpz a3.gpz a4.gpz a5.gpz -- b1.gpz b2.gpz b3.gpz b4.gpz b5.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t4001 out
head -n 1 out | grep -q '^SLOWER per step: +' || fail "A/B first line: $(head -n 1 out)"
golden t4001-md m.md
golden t4001-junit j.xml
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout --schema "$TOP/tests/junit.xsd" j.xml 2>xerr || fail "JUnit: $(cat xerr)"
fi
python3 - <<'PY' || fail "diff JSON"
import json
d = json.load(open("d.json"))
m = {x["name"]: x for x in d["metrics"]}
assert d["runs"] == {"baseline": 5, "candidate": 5} and d["samples"] == "steps"
w = m["step.wall"]
assert w["verdict"] == "regressed" and w["gated"] and w["samples"] == [30, 30], w
assert w["ci"][0] > 0.02 and w["p_adjusted"] < 0.05
f = m["kernel.flash::flash_bwd_kernel_bf16_hdim128"]
assert f["verdict"] == "regressed" and 0.45 < f["change"] < 0.65, f
# worst first: the regressed metrics lead
v = [x["verdict"] for x in d["metrics"]]
assert v == sorted(v, key=["regressed", "inconclusive", "unchanged", "improved"].index), v
assert d["regressed_gated"] == 1
# the first line reads step.wall, the top cause is the slowed kernels' path time
e = d["explain"]
assert e["direction"] == "slower" and e["change"] == w["change"] and e["ci"] == w["ci"], e
assert e["causes"][0]["metric"] == "path.kernel", e["causes"][0]
assert e["kernel_changes"][0]["metric"] == f["name"], e["kernel_changes"]
PY

# Same seeds, same intervals: the output is deterministic.
expect_rc 3 "$GPUPROF" diff a1.gpz a2.gpz a3.gpz a4.gpz a5.gpz -- b1.gpz b2.gpz b3.gpz b4.gpz b5.gpz
golden t4001 out

# A/A: different seeds, same distribution; nothing gated regresses.
expect_rc 0 "$GPUPROF" diff --fail-on 'step.wall,gpu.busy,kernel.*' --junit aa.xml \
	a1.gpz a2.gpz a3.gpz a4.gpz a5.gpz -- c1.gpz c2.gpz c3.gpz c4.gpz c5.gpz
head -n 1 out | grep -Eq '^(NO MATERIAL CHANGE|INCONCLUSIVE) per step: ' ||
	fail "A/A first line: $(head -n 1 out)"
# the gate's line follows the first line (which the text may wrap, indented)
awk 'NR > 1 && !/^  /{print; exit}' out | grep -q '^No regression in the gated metrics' ||
	fail "A/A gate: $(head -n 3 out)"
grep -q 'failures="0"' aa.xml || fail "A/A JUnit has failures"

# A config file: a higher floor for step time, gating on the kernel families too.
cat >gate.conf <<'CONF'
# thresholds for this repository
min-effect 2%
fail-on step.wall kernel.*
threshold step.wall 30%
seed 3
CONF
expect_rc 3 "$GPUPROF" diff --config gate.conf --json g.json a1.gpz a2.gpz a3.gpz a4.gpz a5.gpz -- \
	b1.gpz b2.gpz b3.gpz b4.gpz b5.gpz
python3 - <<'PY' || fail "config thresholds"
import json
d = json.load(open("g.json"))
m = {x["name"]: x for x in d["metrics"]}
assert m["step.wall"]["min_effect"] == 0.3 and m["step.wall"]["verdict"] != "regressed"
assert m["kernel.flash::flash_bwd_kernel_bf16_hdim128"]["gated"]
assert d["regressed_gated"] == 1 and d["bootstrap"]["seed"] == 3
PY
# Options override the file.
expect_rc 0 "$GPUPROF" diff --config gate.conf --fail-on step.wall -q a1.gpz a2.gpz a3.gpz a4.gpz \
	a5.gpz -- b1.gpz b2.gpz b3.gpz b4.gpz b5.gpz
[ -s out ] && fail "--quiet printed a table"

# Config errors name the file and line.
printf 'alpha 0.05\nmin-effect lots\n' >bad.conf
expect_rc 1 "$GPUPROF" diff --config bad.conf a1.gpz -- b1.gpz
grep -q "bad.conf:2: bad value for min-effect: 'lots'" err || fail "config error: $(cat err)"
printf '# ok\nfrobnicate 3\n' >bad2.conf
expect_rc 1 "$GPUPROF" diff --config bad2.conf a1.gpz -- b1.gpz
grep -q "bad2.conf:2: unknown setting 'frobnicate'" err || fail "config error: $(cat err)"
printf 'rule /(/ x\n' >bad.rules
expect_rc 1 "$GPUPROF" diff --rules bad.rules a1.gpz -- b1.gpz
grep -q "bad.rules:1: bad regex" err || fail "rules error: $(cat err)"
expect_rc 1 "$GPUPROF" diff --config missing.conf a1.gpz -- b1.gpz

# A rules file folds every flash kernel into one family.
printf '# one family for both directions\nrule /^flash::flash_(fwd|bwd)_.*/ flash\n' >r.rules
expect_rc 3 "$GPUPROF" diff --rules r.rules --json r.json a1.gpz a2.gpz a3.gpz a4.gpz a5.gpz -- \
	b1.gpz b2.gpz b3.gpz b4.gpz b5.gpz
grep -q '"name":"kernel.flash"' r.json || fail "rules not applied"
grep -q 'flash_bwd' r.json && fail "family not folded"

# The Markdown cap: truncated with a note, under the limit.
expect_rc 3 "$GPUPROF" diff --markdown small.md --markdown-max 2000 a1.gpz a2.gpz a3.gpz a4.gpz \
	a5.gpz -- b1.gpz b2.gpz b3.gpz b4.gpz b5.gpz
[ "$(wc -c <small.md)" -le 2000 ] || fail "markdown over its cap: $(wc -c <small.md)"
grep -q 'Output capped at 2000 bytes' small.md || fail "no truncation note"

# A run can be a directory of rank traces.
mkdir d1 d2 e1 e2
for i in 1 2; do
	"$TRACEGEN" --seed $i --steps 5 --kernels 16 --ranks 2 --same-kernels -o d$i/r%r.gpz >/dev/null
	"$TRACEGEN" --seed $((i + 9)) --steps 5 --kernels 16 --ranks 2 --same-kernels \
		-o e$i/r%r.gpz >/dev/null
done
expect_rc 0 "$GPUPROF" diff --json dir.json d1 d2 -- e1 e2
python3 - <<'PY' || fail "directory runs"
import json
d = json.load(open("dir.json"))
assert d["runs"] == {"baseline": 2, "candidate": 2}
w = [x for x in d["metrics"] if x["name"] == "step.wall"][0]
assert w["samples"] == [10, 10], w
# too few runs for a 2 % verdict either way is fine; the gate must not fail
assert d["regressed_gated"] == 0
PY

# MFU (higher is better), Holm's correction, and runs of different step counts
# (one sample per run: the median of its steps).
gen s1.gpz 201 --steps 4
gen s2.gpz 202 --steps 7
expect_rc 3 "$GPUPROF" diff --flops-per-step 2e12 --peak-tflops 989 --correction holm \
	--fail-on step.wall,mfu --json mfu.json a1.gpz a2.gpz a3.gpz a4.gpz a5.gpz -- b1.gpz b2.gpz \
	b3.gpz b4.gpz b5.gpz
expect_rc 0 "$GPUPROF" diff --json med.json a1.gpz a2.gpz -- s1.gpz s2.gpz
python3 - <<'PY' || fail "mfu, holm, run medians"
import json
d = json.load(open("mfu.json"))
m = {x["name"]: x for x in d["metrics"]}
f, w = m["mfu"], m["step.wall"]
assert d["correction"] == "holm"
assert f["higher_is_better"] and f["verdict"] == "regressed" and f["gated"], f
# mfu = flops / (wall x peak x 1 GPU): its change mirrors the step time's
assert abs((1 + f["change"]) * (1 + w["change"]) - 1) < 0.01, (f["change"], w["change"])
assert abs(f["baseline_median"] / (2e12 / (w["baseline_median"] * 1e-9 * 989e12)) - 1) < 1e-3
d = json.load(open("med.json"))
assert d["samples"] == "run-medians"
assert [x for x in d["metrics"] if x["name"] == "step.wall"][0]["samples"] == [2, 2]
PY

# Kernel names a trace may hold (control characters, markup) stay valid XML.
for i in 1 2 3 4; do
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"void k\\u0001<a&b>\\u00e9(int)","ts":1000,"dur":%d,"pid":0,"tid":7,"args":{"device":0,"stream":7,"correlation":1}}]}' \
		$((100 + i)) >k$i.json
done
expect_rc 0 "$GPUPROF" diff --fail-on all --junit k.xml --markdown k.md k1.json k2.json -- k3.json \
	k4.json
grep -q 'name="kernel.k?' k.xml || fail "control character not replaced: $(grep kernel k.xml)"
grep -q 'samples: one per run: no steps found' out || fail "whole-run samples not said"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout --schema "$TOP/tests/junit.xsd" k.xml 2>xerr || fail "JUnit: $(cat xerr)"
fi

# Usage and input errors.
expect_rc 2 "$GPUPROF" diff a1.gpz b1.gpz
grep -q "separate the baseline and candidate runs with '--'" err || fail "$(cat err)"
expect_rc 2 "$GPUPROF" diff -- b1.gpz
expect_rc 2 "$GPUPROF" diff a1.gpz --
expect_rc 2 "$GPUPROF" diff --alpha 2 a1.gpz -- b1.gpz
expect_rc 2 "$GPUPROF" diff --bogus a1.gpz -- b1.gpz
expect_rc 2 "$GPUPROF" diff --step '(' a1.gpz -- b1.gpz
expect_rc 1 "$GPUPROF" diff a1.gpz -- nothere.gpz
grep -q "nothere.gpz" err || fail "missing file not named: $(cat err)"
printf 'not a trace' >junk.gpz
expect_rc 1 "$GPUPROF" diff a1.gpz -- junk.gpz
expect_rc 1 "$GPUPROF" diff --skip-steps 9 a1.gpz -- b1.gpz
grep -q "no steps left after skipping 9" err || fail "$(cat err)"
expect_rc 0 "$GPUPROF" diff --help
exit 0
