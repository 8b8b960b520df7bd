#!/bin/sh
# gpuprof memory on a generated PyTorch-profiler trace with a known allocation
# pattern (tests/tools/gen-kineto-memory.py): the peak in backward and what
# held it, each step's peak and bytes live at its end, a leak of 3 MiB per
# step with its site, reserved minus allocated at the peak, allocations freed
# inside their step; the same trace without the allocator's totals (rebuilt);
# the findings of gpuprof report; the text golden; usage errors.
. "$TOP/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || exit 77

python3 "$TOP/tests/tools/gen-kineto-memory.py" m.json || fail "generator"
python3 "$TOP/tests/tools/gen-kineto-memory.py" --no-totals n.json || fail "generator"

expect_rc 0 "$GPUPROF" memory m.json
golden t2690 out
expect_rc 0 "$GPUPROF" memory --format json m.json
mv out m.out.json
expect_rc 0 "$GPUPROF" memory --format json n.json
mv out n.out.json
expect_rc 0 "$GPUPROF" report --format json m.json
mv out r.out.json

python3 - <<'PY' || fail "memory figures"
import json
MIB = 1 << 20
m = json.load(open("m.out.json"))
assert m["schema"] == "gpuprof-memory/2", m["schema"]
assert m["events"] == 45 and m["devices_with_events"] == 1
d = m["devices"][0]
assert d["device"] == "cuda:0"
assert d["peak_allocated_bytes"] == 37 * MIB, d
assert d["phase"] == "backward", d
assert d["reserved_at_peak_bytes"] == 1024 * MIB and d["reserved_minus_allocated_bytes"] == 987 * MIB, d
assert d["capacity_bytes"] == 48 * MIB and d["totals"] == "source", d
# the peak: 4 ms into the trace (step 4) + 310 us, exact
assert d["peak_at_ns"] == 4 * 1000000 + 310000, d["peak_at_ns"]
own = {(o["allocated_by"], o["phase"]): (o["bytes"], o["allocations"]) for o in m["owners"]}
assert own[("aten::cat", "unknown")] == (15 * MIB, 5), own
assert own[("autograd::engine::evaluate_function: AddmmBackward0", "backward")] == (8 * MIB, 1), own
assert own[("aten::linear", "unknown")] == (4 * MIB, 1), own
assert own[("(allocated before the trace, or not matched)", "unknown")][0] == 10 * MIB, own
assert len(own) == 4, own
steps = m["steps"]
assert [s["step"] for s in steps] == [0, 1, 2, 3, 4], steps
for k, s in enumerate(steps):
    assert s["peak_allocated_bytes"] == (25 + 3 * k) * MIB, s
    assert s["live_at_end_bytes"] == (13 + 3 * k) * MIB, s
    assert s["allocations"] == 5 and s["allocated_bytes"] == 18 * MIB, s
    assert s["freed_in_step"] == 4 and s["freed_in_step_bytes"] == 15 * MIB, s
leaks = m["leaks"]
assert len(leaks) == 1, leaks
assert leaks[0]["growth_per_step_bytes"] == 3 * MIB and leaks[0]["allocated_by"] == "aten::cat", leaks
assert leaks[0]["still_live_bytes"] == 9 * MIB and leaks[0]["allocations"] == 3, leaks
assert m["calls"][0]["calls"] == 0
tl_free = m.get("timeline") is None
assert tl_free, "the timeline is only printed on request"

n = json.load(open("n.out.json"))
d = n["devices"][0]
assert d["totals"] == "rebuilt" and d["peak_allocated_bytes"] == 27 * MIB, d
assert d["reserved_at_peak_bytes"] is None, d
assert [s["live_at_end_bytes"] for s in n["steps"]] == [(3 + 3 * k) * MIB for k in range(5)]
assert n["leaks"][0]["growth_per_step_bytes"] == 3 * MIB

r = json.load(open("r.out.json"))
assert r["schema"] == "gpuprof-report/2"
assert r["gpu_memory"][0]["peak_allocated_bytes"] == 37 * MIB
cats = {f["category"]: f for f in r["memory_findings"]}
assert set(cats) == {"memory-peak", "memory-leak", "fragmentation"}, cats
assert cats["memory-peak"]["bytes"] == 37 * MIB and cats["memory-peak"]["of"] == 48 * MIB
assert "in backward" in cats["memory-peak"]["text"], cats["memory-peak"]
assert cats["memory-leak"]["bytes"] == 3 * MIB and cats["memory-leak"]["of"] == 5
assert cats["fragmentation"]["bytes"] == 987 * MIB
PY

# the timeline table: one row per event, the totals after each
expect_rc 0 "$GPUPROF" memory --table timeline --format csv m.json
[ "$(wc -l <out)" -eq 46 ] || fail "timeline rows: $(wc -l <out)"
tail -n 1 out | grep -q '^4750000,cuda:0,free,8388608,26214400,1073741824$' ||
	fail "last timeline row: $(tail -n 1 out)"
expect_rc 0 "$GPUPROF" memory --format markdown n.json
grep -q 'totals rebuilt from the events' out || fail "rebuilt totals not said"
grep -q '^### Memory per step' out || fail "markdown tables"

# the HTML report: a chart of allocated and reserved over time, the peak in it
expect_rc 0 "$GPUPROF" report --format html -o r.html m.json
python3 - <<'PY' || fail "HTML memory chart"
import base64, re, xml.dom.minidom
html = open("r.html").read()
assert 'id="sec-memory"' in html
src = re.search(r'class="gp-memory"[^>]*src="data:image/svg\+xml;base64,([^"]+)"', html) or \
      re.search(r'src="data:image/svg\+xml;base64,([^"]+)"[^>]*class="gp-memory"', html)
svg = xml.dom.minidom.parseString(base64.b64decode(src.group(1)))
texts = [t.firstChild.data for t in svg.getElementsByTagName("text") if t.firstChild]
assert any("cuda:0: peak 37.00 MiB allocated, up to 1.00 GiB reserved" in t for t in texts), texts
lines = {p.getAttribute("class"): p.getAttribute("points") for p in svg.getElementsByTagName("polyline")}
assert set(lines) == {"allocated", "reserved"}, lines
# the highest point of the allocated line is the peak: 37 MiB of the 1 GiB scale
ys = [float(p.split(",")[1]) for p in lines["allocated"].split()]
top, height = 26, 160
assert abs(min(ys) - (top + height - 37 / 1024 * height)) < 0.06, min(ys)
PY

expect_rc 2 "$GPUPROF" memory --table nope m.json
grep -q "unknown table 'nope'" err || fail "bad table message: $(cat err)"
expect_rc 2 "$GPUPROF" memory
exit 0
