#!/bin/sh
# The HTML report's operator roofline: one point per operator input set with
# a FLOP model, placed at its FLOP/byte and achieved TFLOP/s on log-log axes,
# under the device's memory roof and the compute roof of its data type; data
# movement (no FLOPs) left out and counted; no section without shapes. In
# headless Chromium (skipped where absent) the page loads without script
# errors and the frame is laid out.
. "$TOP/tests/e2e/lib.sh"

write_trace() { # $1: 1 with shapes, 0 without
	python3 - "$1" >k.json <<'PY'
import json, sys
shapes = sys.argv[1] == "1"
def op(name, ts, dur, dims, types, conc):
    a = {"External id": 1}
    if shapes:
        a["Input Dims"] = dims
        a["Input type"] = types
        a["Concrete Inputs"] = conc
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
            "dur": dur, "args": a}
def launch(ts, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
            "tid": 1, "ts": ts, "dur": 10, "args": {"correlation": corr}}
def kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts,
            "dur": dur, "args": {"device": 0, "stream": 7, "correlation": corr,
                                 "grid": [1, 1, 1], "block": [128, 1, 1]}}
bf = "c10::BFloat16"
ev = [
    op("aten::mm", 100, 300, [[1024, 4096], [4096, 4096]], [bf, bf], ["", ""]),
    launch(120, 5), kernel("sm90_gemm_bf16", 140, 100, 5),
    op("aten::relu", 500, 100, [[1024, 1024]], ["float"], [""]),
    launch(510, 6), kernel("relu_kernel", 530, 10, 6),
    op("aten::copy_", 700, 100, [[1024, 1024], [1024, 1024], []], ["float", "float", "Scalar"],
       ["", "", "False"]),
    launch(710, 7), kernel("copy_kernel", 730, 20, 7),
]
print(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0,
      "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640, "computeMajor": 9,
      "computeMinor": 0, "numSms": 132}], "traceEvents": ev}))
PY
}

write_trace 1
expect_rc 0 "$GPUPROF" report --format html -o r.html k.json
python3 - <<'PY' || fail "roofline chart"
import base64, math, re, xml.dom.minidom
html = open("r.html", encoding="utf-8").read()
assert 'id="sec-roofline"' in html, "no roofline section"
src = re.search(r'class="gp-roofline"[^>]*src="data:image/svg\+xml;base64,([^"]+)"', html) or \
      re.search(r'src="data:image/svg\+xml;base64,([^"]+)"[^>]*class="gp-roofline"', html)
svg = xml.dom.minidom.parseString(base64.b64decode(src.group(1)))
circles = svg.getElementsByTagName("circle")
tips = [c.getElementsByTagName("title")[0].firstChild.data for c in circles]
# aten::mm and aten::relu have FLOPs; aten::copy_ moves bytes only and is not drawn
assert len(circles) == 2, tips
assert tips[0].startswith("aten::mm ") and tips[1].startswith("aten::relu "), tips
assert circles[0].getAttribute("class") == "compute", circles[0].getAttribute("class")
assert circles[1].getAttribute("class") == "memory", circles[1].getAttribute("class")
texts = [t.firstChild.data for t in svg.getElementsByTagName("text") if t.firstChild]
assert "not drawn: 1 modelled input sets without FLOPs or bytes" in " ".join(texts), texts
# H100 SXM: 3.35 TB/s, BF16 989.5 TFLOP/s: ridge 295.4 FLOP/B
assert "memory 3.35 TB/s" in texts and "bf16 990 TFLOP/s, ridge 295 FLOP/B" in texts, texts
# the axes: decade grid lines, labelled by value, log-scaled
def axis(vertical):
    marks = {}
    for l in svg.getElementsByTagName("line"):
        if l.getAttribute("class") != "grid":
            continue
        a = float(l.getAttribute("x1" if vertical else "y1"))
        if (l.getAttribute("x1") == l.getAttribute("x2")) == vertical:
            marks[a] = None
    return sorted(marks)
xs, ys = axis(True), axis(False)
xlab = sorted(float(t.firstChild.data) for t in svg.getElementsByTagName("text")
              if t.getAttribute("text-anchor") == "middle" and t.firstChild
              and re.fullmatch(r"[0-9.e+-]+", t.firstChild.data))
ylab = sorted((float(t.firstChild.data) for t in svg.getElementsByTagName("text")
               if t.getAttribute("text-anchor") == "end" and t.firstChild
               and re.fullmatch(r"[0-9.e+-]+", t.firstChild.data)), reverse=True)
assert len(xs) == len(xlab) >= 3 and len(ys) == len(ylab) >= 3, (xs, xlab, ys, ylab)
def place(v, marks, labs):
    k = (math.log10(v) - math.log10(labs[0])) / (math.log10(labs[-1]) - math.log10(labs[0]))
    return marks[0] + k * (marks[-1] - marks[0])
# aten::mm: 2·1024·4096·4096 = 34359738368 FLOPs over (1024·4096 + 4096² + 1024·4096)·2 B
# = 50331648 B: 682.67 FLOP/B; in 100 us 343.597 TFLOP/s
mm_x, mm_y = 34359738368 / 50331648, 34359738368 / 100000 / 1000
cx, cy = float(circles[0].getAttribute("cx")), float(circles[0].getAttribute("cy"))
assert abs(cx - place(mm_x, xs, xlab)) < 0.2, (cx, place(mm_x, xs, xlab))
assert abs(cy - place(mm_y, ys, ylab)) < 0.2, (cy, place(mm_y, ys, ylab))
assert "682.67 FLOP/B, 343.597 TFLOP/s, 34.7% of the roofline (compute-bound)" in tips[0], tips[0]
# aten::relu: 1048576 FLOPs over 8388608 B (0.125 FLOP/B); in 10 us 0.105 TFLOP/s, under
# the memory roof at 0.125 · 3.35 = 0.419 TFLOP/s: 25 %
cx, cy = float(circles[1].getAttribute("cx")), float(circles[1].getAttribute("cy"))
assert abs(cx - place(0.125, xs, xlab)) < 0.2 and abs(cy - place(0.1048576, ys, ylab)) < 0.2
assert "25.0% of the roofline (memory-bound)" in tips[1], tips[1]
# the memory roof passes through (x, 3.35 x) and meets the BF16 roof at the ridge
roofs = [l for l in svg.getElementsByTagName("line") if l.getAttribute("class") == "roof"]
mem = [l for l in roofs if l.getAttribute("y1") != l.getAttribute("y2")]
assert len(mem) == 1, len(mem)
x2, y2 = float(mem[0].getAttribute("x2")), float(mem[0].getAttribute("y2"))
assert abs(x2 - place(989.5 / 3.35, xs, xlab)) < 0.2 and abs(y2 - place(989.5, ys, ylab)) < 0.2
ridge = [l for l in svg.getElementsByTagName("line") if l.getAttribute("class") == "ridge"]
assert any(abs(float(l.getAttribute("x1")) - x2) < 0.05 for l in ridge), "no ridge at the corner"
PY

# Without shapes: time-only rows, no roofline section.
write_trace 0
expect_rc 0 "$GPUPROF" report --format html -o plain.html k.json
grep -q 'sec-roofline' plain.html && fail "a roofline without shapes"
# Other formats do not change.
expect_rc 0 "$GPUPROF" report --format json k.json
grep -q roofline out && fail "json report mentions the operator roofline"

browser_checks || exit 0
command -v chromium >/dev/null 2>&1 || { echo "chromium not installed: browser check skipped"; exit 77; }
python3 - "$TOP/tests/e2e/html/check.js" <<'PY' || fail "cannot build the test page"
import sys
js = open(sys.argv[1]).read()
s = open("r.html", encoding="utf-8").read()
hook = ('<script>window.__gpErrors=[];window.addEventListener("error",function(e){'
        '__gpErrors.push(e.message)});</script>')
s = s.replace("<head>", "<head>" + hook, 1)
extra = ('<div id="gp-test-sections" hidden>sec-roofline sec-timeline</div>'
         '<div id="gp-test-filter" hidden>gemm</div><script>%s</script>' % js)
i = s.rindex("</body>")
open("test-r.html", "w", encoding="utf-8").write(s[:i] + extra + s[i:])
PY
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
	--no-first-run --window-size=1400,1000 --virtual-time-budget=5000 \
	--dump-dom "file://$(pwd)/test-r.html" >dom.html 2>chromium.log ||
	fail "chromium failed: $(tail -n 5 chromium.log)"
python3 - <<'PY' || fail "browser checks"
import re, html
dom = open("dom.html", encoding="utf-8").read()
m = re.search(r'<pre id="gp-test-result">(.*?)</pre>', dom, re.S)
assert m, "no result block: the page script or the checks did not run"
lines = html.unescape(m.group(1)).splitlines()
print("\n".join(lines))
assert lines and lines[-1] == "DONE", "checks did not finish"
assert "ok roofline frame" in lines and "ok section sec-roofline" in lines, lines
assert not [l for l in lines if l.startswith("FAIL")], "failures"
PY
