#!/bin/sh
# Implausible data is never silent, in any command, and never distorts the
# windows and busy figures: one kernel four years off, one kernel of 30 days,
# and the same trace given twice (directly, through a symbolic link, through a
# directory, as a copy, and converted to .gpz). Each command says each on
# standard error with its count; JSON outputs carry a "sanity" object with the
# counts and the warnings, Markdown a Warnings section, the HTML report its
# Warnings list. Busy time, windows and kernel totals equal those of the trace
# without the implausible kernel (or given once).
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }

# 400 kernels of 50 us, 100 us apart, each launched by a call; "out": kernel 200
# starts 4 years (126,230,400 s) later; "long": it lasts 30 days; "drop": it is
# not there at all (what the other two must read as).
cat >gen.py <<'EOF'
import json, sys
mode = sys.argv[2] if len(sys.argv) > 2 else ""
ev = []
for i in range(400):
    ts = 1000.0 + i * 100.0
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": ts - 10.0, "dur": 5.0, "args": {"correlation": i + 1}})
    k = {"ph": "X", "cat": "kernel", "name": "k%d" % (i % 4), "pid": 0, "tid": 7, "ts": ts,
         "dur": 50.0, "args": {"device": 0, "stream": 7, "correlation": i + 1}}
    if i == 200 and mode == "out":
        k["ts"] = ts + 126230400e6
    if i == 200 and mode == "long":
        k["dur"] = 30 * 86400e6
    if not (i == 200 and mode == "drop"):
        ev.append(k)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
for m in clean drop out long; do
	python3 gen.py "$m.json" "$m" || fail "gen $m"
done

# figures.py WANT GOT...: the windows, busy and idle time, span, kernel totals
# and steps of each GOT (gpuprof report, gaps or stats JSON) equal WANT's.
cat >figures.py <<'EOF'
import json, sys
def figures(path):
    d = json.load(open(path))
    if "gpu" in d:
        g, t = d["gpu"], d["traced"]
        return (g["window_ns"], g["busy_ns"], g["idle_ns"], g["gaps"], t["span_ns"],
                t["kernel_time_ns"], [(s["wall_ns"], s["gpu_busy_ns"]) for s in d["steps"]],
                [(k["name"], k["total_time_ns"]) for k in d["kernels"]])
    if "devices" in d:
        return [(x["window_ns"], x["busy_ns"], x["idle_ns"], x["gaps"]) for x in d["devices"]]
    return [(r["name"], r["total_time_ns"], r["instances"]) for r in d["reports"][0]["rows"]]
want = figures(sys.argv[1])
assert want, sys.argv[1]
for p in sys.argv[2:]:
    assert figures(p) == want, (p, figures(p), want)
EOF

OUT_SAYS="1 record starts far from the rest of the trace (up to 1461 days away"
LONG_SAYS="1 GPU operations or API calls last longer than a day (the longest 2592000 s)"
LEFT_OUT="1 GPU operation among them is left out of the device timelines"

# Every command that prints results: text (stderr), JSON and Markdown; the
# JSON outputs are checked together below.
CMDS="report gaps stats breakdown launches ops memory comm critical-path occupancy mfu"
for c in $CMDS; do
	for m in out long; do
		says=$OUT_SAYS
		[ "$m" = long ] && says=$LONG_SAYS
		expect_rc 0 "$GPUPROF" "$c" "$m.json"
		grep -q "warning: $says" err || fail "$c $m: text says nothing: $(head -c 300 err)"
		grep -q "$LEFT_OUT" err || fail "$c $m: text does not say what was left out"
		expect_rc 0 "$GPUPROF" "$c" -f markdown "$m.json"
		grep -q "$says" out || fail "$c $m: markdown says nothing"
		expect_rc 0 "$GPUPROF" "$c" -f json "$m.json"
		mv out "j.$c.$m"
	done
	expect_rc 0 "$GPUPROF" "$c" -f json clean.json
	grep -q "warning" err && fail "$c clean: a warning: $(cat err)"
	mv out "j.$c.clean"
done
python3 - $CMDS <<'EOF' || fail "json outputs"
import json, sys
for c in sys.argv[1:]:
    for m in ("out", "long"):
        d = json.load(open("j.%s.%s" % (c, m)))
        s = d["sanity"]
        key = "outliers" if m == "out" else "absurd_durations"
        left = "outlier_gpu_ops_left_out" if m == "out" else "absurd_gpu_ops_left_out"
        assert s[key] == 1 and s[left] == 1, (c, m, s)
        w = d["warnings"] if c == "report" else s["warnings"]
        assert any("left out of the device timelines" in x for x in w), (c, m, w)
    d = json.load(open("j.%s.clean" % c))
    if c == "report":
        assert set(d["sanity"].values()) == {0}, d["sanity"]
    else:
        assert "sanity" not in d, c
EOF

# The other commands: flame, export, info, diff and the HTML report say it too.
expect_rc 0 "$GPUPROF" flame -o f.svg out.json
grep -q "$OUT_SAYS" err || fail "flame: says nothing"
expect_rc 0 "$GPUPROF" export --sqlite e.sqlite long.json
grep -q "$LONG_SAYS" err || fail "export: says nothing"
expect_rc 0 "$GPUPROF" info out.json long.json clean.json
grep -q "warning: out.json: $OUT_SAYS" err || fail "info: outlier not said"
grep -q "warning: long.json: $LONG_SAYS" err || fail "info: day-long kernel not said"
[ "$(grep -c warning err)" = 2 ] || fail "info: $(cat err)"
expect_rc 0 "$GPUPROF" report -f html -o r.html out.json
grep -q "$OUT_SAYS" r.html || fail "html: says nothing"
expect_rc 0 "$GPUPROF" diff --markdown d.md --json d.json clean.json -- out.json
for f in out d.md d.json; do
	grep -q "$OUT_SAYS" "$f" || fail "diff $f: says nothing"
done

# The figures: as if the implausible kernel were not there at all.
n=0
for c in "report -f json" "gaps -f json" "stats -f json --report cuda_gpu_kern_sum"; do
	n=$((n + 1))
	for m in drop out long; do
		# shellcheck disable=SC2086
		"$GPUPROF" $c "$m.json" >"f$n.$m" 2>/dev/null || fail "$c $m"
	done
	python3 figures.py "f$n.drop" "f$n.out" "f$n.long" || fail "$c: figures differ"
done

# What is not an outlier, and an outlier (a kernel and its call) before the
# rest. kern.py OUT START COUNT STEP [START COUNT STEP]...: COUNT kernels of
# 50 us every STEP us from START us (runs of them), each launched by a call.
cat >kern.py <<'EOF'
import json, sys
a, ev, c = sys.argv[2:], [], 0
for r in range(0, len(a), 3):
    for i in range(int(a[r + 1])):
        ts, c = float(a[r]) + i * float(a[r + 2]), c + 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": ts - 10.0, "dur": 5.0, "args": {"correlation": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts,
                   "dur": 50.0, "args": {"device": 0, "stream": 7, "correlation": c}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
DAY=86400000000
python3 kern.py before.json 1000 1 1 400000000000000 400 100 &&
	python3 kern.py bulk.json 400000000000000 400 100 &&
	python3 kern.py groups.json 1000 200 100 $((3 * DAY)) 200 100 &&
	python3 kern.py spread.json 1000 11 $((DAY / 2)) &&
	python3 kern.py late.json 400000000000000 400 100 || fail "kern.py"
expect_rc 0 "$GPUPROF" gaps -f json before.json
grep -q "warning: 2 records start far from the rest of the trace (up to 4630 days away.*; 1 GPU operation among them" err ||
	fail "an outlier before the rest: $(cat err)"
"$GPUPROF" gaps -f json bulk.json >g.bulk 2>/dev/null || fail "gaps bulk"
python3 figures.py g.bulk out || fail "an outlier before the rest: figures"
# two big groups 3 days apart, a kernel every 12 h for 5 days, two processes
# years apart (each on its own clock): none is an outlier
for args in groups.json spread.json "clean.json late.json"; do
	# shellcheck disable=SC2086
	expect_rc 0 "$GPUPROF" gaps $args
	grep -Eq "far from|longer than a day" err && fail "gaps $args: $(cat err)"
done

# The same trace twice: read once, said; through a link, a directory, a copy.
mkdir dir && cp clean.json dir/a.json && ln -s ../clean.json dir/b.json &&
	ln -s clean.json lnk.json && cp clean.json copy.json || fail "making the inputs"
"$GPUPROF" gaps -f json clean.json >g.once 2>/dev/null || fail "gaps clean"
n=0
for args in "clean.json clean.json" "clean.json lnk.json" "clean.json dir" "clean.json copy.json"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$GPUPROF" gaps -f json $args >"g.twice$n" 2>/dev/null || fail "gaps $args"
	for c in report gaps stats launches ops critical-path; do
		# shellcheck disable=SC2086
		expect_rc 0 "$GPUPROF" "$c" $args
		grep -q "not read again" err || fail "$c $args: duplicate not said: $(head -c 300 err)"
	done
done
python3 figures.py g.once g.twice1 g.twice2 g.twice3 g.twice4 || fail "inputs given twice: figures"
expect_rc 0 "$GPUPROF" gaps clean.json dir lnk.json
grep -q "warning: dir/a.json is the same trace as clean.json (the same bytes): 3 inputs repeat earlier ones and are not read again" err ||
	fail "count of inputs given twice: $(cat err)"
expect_rc 0 "$GPUPROF" report -f json clean.json copy.json
python3 - out <<'EOF' || fail "report json duplicate counts"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sanity"]
assert s["duplicate_inputs"] == 1 and s["duplicate_files_not_read"] == 1, s
assert d["traced"]["kernels"] == 400, d["traced"]
assert any("copy.json is the same trace as clean.json (the same bytes)" in w for w in d["warnings"])
EOF

# The same process in two files (a Kineto trace and its conversion): its GPU
# operations counted once, said.
expect_rc 0 "$GPUPROF" convert clean.json conv.gpz
"$GPUPROF" gaps -f json clean.json conv.gpz >g.conv 2>/dev/null || fail "gaps conv"
"$GPUPROF" stats -f json --report cuda_gpu_kern_sum clean.json >s.once 2>/dev/null || fail "stats"
"$GPUPROF" stats -f json --report cuda_gpu_kern_sum clean.json conv.gpz >s.conv 2>/dev/null ||
	fail "stats conv"
python3 figures.py g.once g.conv || fail "gaps, trace and its conversion"
python3 figures.py s.once s.conv || fail "stats, trace and its conversion"
expect_rc 0 "$GPUPROF" gaps clean.json conv.gpz
grep -q "conv.gpz is the same trace as clean.json (same process, times and record count): 1 process given twice" err ||
	fail "trace and its conversion: not said: $(cat err)"
echo ok
