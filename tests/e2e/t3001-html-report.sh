#!/bin/sh
# gpuprof report --format html: one self-contained page. Static checks here;
# in headless Chromium (skipped, exit 77, where it is absent): no script
# errors, every section present, charts and timeline drawn, zoom and the
# step picker, sorting and filtering, names with markup kept as text.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 6 --kernels 60 --copies 3 --devices 2 --gap-ns 300000 --item-sync \
	--all-kinds -o run.gpz >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" report --format html -o run.html run.gpz
[ -s out ] && fail "html went to stdout with -o"
[ -s err ] && fail "unexpected stderr: $(cat err)"

# Names with markup, quotes, a closing script tag and non-ASCII (imported from Kineto JSON).
cat >k.json <<'JSON'
{"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000, "dur": 300},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1010, "dur": 5, "args": {"correlation": 11}},
  {"ph": "X", "cat": "kernel", "name": "k<b class=\"gp-injected\">x</b></script><!-- & 'q' \u00e9\u6f22", "pid": 0, "tid": 7, "ts": 1020, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 11}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1100, "dur": 5, "args": {"correlation": 12}},
  {"ph": "X", "cat": "kernel", "name": "plain_kernel", "pid": 0, "tid": 7, "ts": 1200, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 12}}
 ]}
JSON
expect_rc 0 "$GPUPROF" report -f html -o names.html k.json

# Every section with data: ranks with NCCL operations (communication), MFU and
# roofline options (utilization, roofline), kernels with launch configurations
# (occupancy). The sections are the report's own tables.
"$TRACEGEN" --nccl --ranks 2 --straggler 1 --seed 3 -o "r%r.gpz" >/dev/null || fail "tracegen --nccl"
printf 'pattern="." flops="threads * 1000" bytes="threads * 12"\n' >roof.rules
expect_rc 0 "$GPUPROF" report --format html --flops-per-step 5e12 --bytes-per-step 2e9 \
	--roofline roof.rules -o rich.html r0.gpz r1.gpz
expect_rc 0 "$GPUPROF" report --format json --flops-per-step 5e12 --bytes-per-step 2e9 \
	--roofline roof.rules r0.gpz r1.gpz
mv out rich.json
python3 - <<'PY' || fail "rich page"
import json, re
page = open("rich.html", encoding="utf-8").read()
rep = json.load(open("rich.json"))
data = json.loads(re.search(r'<script type="application/json" id="gp-data">(.*?)</script>', page, re.S).group(1))
for key in ("occupancy", "utilization", "roofline", "communication", "exposed_communication"):
    assert 'id="sec-%s"' % key in page, "no section " + key
    assert rep.get(key), "the JSON report has no " + key
    # The page's table has as many rows as the report's.
    m = re.search(r'<section[^>]* id="sec-%s".*?<tbody>(.*?)</tbody>' % key, page, re.S)
    assert m and m.group(1).count("<tr") == len(rep[key]), (key, len(rep[key]))
# Estimates are warnings: occupancy from the compute capability's default limits.
warn = re.search(r'<ul class="gp-warnings">(.*?)</ul>', page, re.S)
ndef = sum(r["limits"] == "CC defaults" for r in rep["occupancy"])
assert ndef and warn and ("Occupancy of %d kernel configurations uses the default limits" % ndef) in warn.group(1), warn
# A trace with no launch configurations: no occupancy, and the page says so.
names = open("names.html", encoding="utf-8").read()
assert re.search(r'<li>No occupancy for 2 launches: launch configuration', names), "no occupancy warning"
PY

# The Critical path section: the tables of gpuprof critical-path, row for row.
expect_rc 0 "$GPUPROF" critical-path --format json r0.gpz r1.gpz
python3 - <<'PY' || fail "critical path section"
import json, re
page = open("rich.html", encoding="utf-8").read()
cp = json.load(open("out"))
for key, rows in (("steps", cp["steps"]), ("composition", cp["composition"]),
                  ("segments", cp["segments"])):
    m = re.search(r'<section[^>]* id="sec-critical-path-%s".*?<tbody>(.*?)</tbody>' % key,
                  page, re.S)
    assert m and m.group(1).count("<tr") == len(rows), (key, len(rows))
assert ">wait-rank<" in page, "no wait-rank category"
PY

# The same run to stdout is the same page; bad options are usage errors.
expect_rc 0 "$GPUPROF" report --format html run.gpz
cmp -s out run.html || fail "stdout and -o pages differ"
expect_rc 2 "$GPUPROF" report --format html --html-events 0 run.gpz
expect_rc 1 "$GPUPROF" report --format html -o no/such/dir/r.html run.gpz
grep -q "no/such/dir/r.html" err || fail "the error does not name the output: $(cat err)"

python3 - <<'PY' || fail "static checks"
import json, re
from html.parser import HTMLParser

for name in ("run.html", "names.html"):
    page = open(name, encoding="utf-8").read()
    assert page.startswith("<!DOCTYPE html>"), name
    # Self-contained: nothing fetched from anywhere.
    assert not re.search(r'<(link|img|object|embed)\b', page), name
    assert not re.search(r'\b(src|href)\s*=\s*"(?!#|data:image/svg\+xml;base64,)', page), name
    assert "http://" not in page.replace('http://www.w3.org/2000/svg', '') and "https://" not in page, name

    class P(HTMLParser):
        def __init__(self):
            super().__init__()
            self.ids, self.tables, self.data, self.cur = set(), [], None, None
        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if "id" in a:
                self.ids.add(a["id"])
            if tag == "table":
                self.tables.append(a.get("data-key"))
            if tag == "script" and a.get("id") == "gp-data":
                self.cur = []
            if tag == "b":
                raise AssertionError("a name became markup")
        def handle_data(self, d):
            if self.cur is not None:
                self.cur.append(d)
        def handle_endtag(self, tag):
            if tag == "script" and self.cur is not None:
                self.data, self.cur = "".join(self.cur), None
    p = P()
    p.feed(page)
    data = json.loads(p.data)
    assert data["schema"] == "gpuprof-html/2"
    for sid in ("sec-warnings", "sec-timeline", "sec-charts", "gp-timeline", "gp-step",
                "gp-chart-steps", "gp-chart-idle", "gp-chart-hist"):
        assert sid in p.ids, (name, sid)
    if name == "run.html":
        for key in ("processes", "steps", "step_distribution", "devices", "idle_by_cause",
                    "kernels", "memory", "longest_gaps"):
            assert key in p.tables, key
        tl = data["timeline"]
        assert len(tl["steps"]) == 6 and tl["views"], tl["steps"]
        # The first view is the representative (median wall) step.
        walls = sorted((s["wall"], i) for i, s in enumerate(tl["steps"]))
        assert tl["views"][0]["step"] == walls[(len(walls) - 1) // 2][1]
        # Every embedded event lies in its view and names a lane and a name.
        for v in tl["views"]:
            n = len(v["t"])
            assert n == len(v["d"]) == len(v["lane"]) == len(v["n"]) == len(v["x"]) > 0
            assert all(0 <= t < v["end"] - v["start"] for t in v["t"])
            assert max(v["lane"]) < len(tl["lanes"]) and max(v["n"]) < len(tl["names"])
            assert len(v["gaps"]) % 4 == 0
        # The flame graph: an SVG of its own in a data: URL, with its frames.
        import base64, xml.dom.minidom
        m = re.search(r'<iframe class="gp-flame"[^>]* src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)
        assert m and "sec-flame" in p.ids, "no flame graph"
        svg = xml.dom.minidom.parseString(base64.b64decode(m.group(1)))
        titles = [t.firstChild.data for t in svg.getElementsByTagName("title") if t.firstChild]
        assert any("flash" in t for t in titles), titles[:5]
        kinds = {l["kind"] for l in tl["lanes"]}
        assert kinds == {"gpu", "nvtx", "api"}, kinds
        # Idle totals agree with the report's own numbers.
        assert data["idle"]["idle"] == data["report"]["gpu"]["idle_ns"]
        assert sum(c["ns"] for c in data["idle"]["causes"]) == data["idle"]["idle"]
    else:
        names = data["timeline"]["names"] + [f for f in data["timeline"]["full"] if f]
        assert any("</script>" in n and "\u00e9\u6f22" in n for n in names), names
        assert "</script" not in p.data and not re.search(r"<b[ >]", page), "markup from a name"
PY

# A small event budget cuts the representative step and embeds no other.
expect_rc 0 "$GPUPROF" report --format html --html-events 50 -o small.html run.gpz
python3 - <<'PY' || fail "event budget"
import json, re
page = open("small.html", encoding="utf-8").read()
data = json.loads(re.search(r'<script type="application/json" id="gp-data">(.*?)</script>', page, re.S).group(1))
v = data["timeline"]["views"]
assert len(v) == 1 and v[0]["cut"] is True and 0 < len(v[0]["t"]) <= 50, [len(x["t"]) for x in v]
PY

browser_checks || exit 0
command -v chromium >/dev/null 2>&1 || { echo "chromium not installed: browser checks skipped"; exit 77; }

# prep PAGE SECTIONS FILTER: a copy of PAGE, test-PAGE, that runs tests/e2e/html/check.js
# (the sections it must find, the kernel-table filter) and writes its results in its DOM.
prep() {
	python3 - "$1" "$2" "$3" "$TOP/tests/e2e/html/check.js" <<'PY' || fail "cannot build the test page"
import sys
page, sections, filt, js = sys.argv[1], sys.argv[2], sys.argv[3], open(sys.argv[4]).read()
s = open(page, encoding="utf-8").read()
hook = ('<script>window.__gpErrors=[];window.addEventListener("error",function(e){'
        '__gpErrors.push(e.message)});var __ce=console.error;console.error=function(){'
        '__gpErrors.push([].join.call(arguments," "));__ce.apply(console,arguments)};</script>')
s = s.replace("<head>", "<head>" + hook, 1)
extra = ('<div id="gp-test-sections" hidden>%s</div><div id="gp-test-filter" hidden>%s</div>'
         '<script>%s</script>' % (sections, filt, js))
i = s.rindex("</body>")
open("test-" + page, "w", encoding="utf-8").write(s[:i] + extra + s[i:])
PY
}
prep run.html "sec-warnings sec-timeline sec-charts sec-flame sec-processes sec-steps sec-step_distribution sec-devices sec-idle_by_cause sec-kernels sec-memory sec-longest_gaps" flash
prep names.html "sec-timeline sec-kernels" plain
prep rich.html "sec-timeline sec-kernels sec-occupancy sec-utilization sec-roofline sec-communication sec-exposed_communication" AllReduce
frames="test-run.html:1400 test-names.html:1400 test-rich.html:1400 test-rich.html:1000 test-run.html:1000"
# A real trace (an anchor, when beside the checkout): its operator roofline's labels,
# its long kernel names in the flame graph, its lane labels, a data-loading stall shaded.
a=kineto/hta/trace_filter/sampled_rank-1.json.gz
if have_anchors "$a"; then
	expect_rc 0 "$GPUPROF" report --format html -o anchor.html "$ANCHORS/$a"
	grep -q 'class="gp-roofline"' anchor.html || fail "the anchor's page has no operator roofline"
	expect_rc 0 "$GPUPROF" gaps --format json --top all --min-gap 1us "$ANCHORS/$a"
	# every idle cause the gap analysis names in the step shown is shaded there
	python3 - <<'PY' || fail "the anchor's shading"
import json, re
page = open("anchor.html", encoding="utf-8").read()
data = json.loads(re.search(r'<script type="application/json" id="gp-data">(.*?)</script>', page, re.S).group(1))
v = data["timeline"]["views"][0]
keys = [c["key"] for c in data["idle"]["causes"]]
shaded = {keys[v["gaps"][i + 3]] for i in range(0, len(v["gaps"]), 4)}
def col(g, word):  # the column, whatever the spelling of its key ("Start (ns)", "start_ns")
    return g[next(k for k in g if k.lower().startswith(word))]
named = {col(g, "cause") for g in json.load(open("out"))["gaps"]
         if min(col(g, "start") + col(g, "length"), v["end"]) - max(col(g, "start"), v["start"]) >= 1000}
assert "data-loading" in named and named <= shaded, (named, shaded)
PY
	prep anchor.html "sec-timeline sec-kernels" embedding
	frames="$frames test-anchor.html:1400 test-anchor.html:1000"
fi

# One browser for every check: a page of frames, each a test page at its width (1400 and
# 1000 px: tables, labels and the timeline at both), whose results it gathers once all
# have loaded (file:// frames may be read with --allow-file-access-from-files).
{
	echo '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
	for f in $frames; do
		echo "<iframe src=\"${f%:*}\" width=\"${f#*:}\" height=\"1000\"></iframe>"
	done
	cat <<'HTML'
<script>
window.addEventListener("load", function () {
	var fr = document.querySelectorAll("iframe");
	for (var i = 0; i < fr.length; i++) {
		var pre = document.createElement("pre"), d = fr[i].contentDocument;
		var r = d && d.getElementById("gp-test-result");
		pre.id = "gp-frame-result";
		pre.setAttribute("data-frame", fr[i].getAttribute("src") + " at " + fr[i].width + " px");
		pre.textContent = r ? r.textContent : "FAIL no result: the page script or the checks did not run";
		document.body.appendChild(pre);
	}
});
</script></body></html>
HTML
} >all.html
timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
	--allow-file-access-from-files --window-size=1400,1000 --virtual-time-budget=10000 \
	--dump-dom "file://$(pwd)/all.html" >dom.html 2>chromium.log ||
	fail "chromium failed: $(tail -n 5 chromium.log)"
python3 - $(echo $frames | wc -w) <<'PY' || fail "browser checks"
import re, html, sys
dom = open("dom.html", encoding="utf-8").read()
res = re.findall(r'<pre id="gp-frame-result" data-frame="([^"]*)">(.*?)</pre>', dom, re.S)
assert len(res) == int(sys.argv[1]), "%d frames reported" % len(res)
bad = False
for frame, text in res:
    lines = html.unescape(text).splitlines()
    print("--- " + frame)
    print("\n".join(lines))
    ok = (lines and lines[-1] == "DONE" and not [l for l in lines if l.startswith("FAIL")] and
          len([l for l in lines if l.startswith("ok ")]) >= 15)
    bad = bad or not ok
assert not bad, "failures"
PY

# Screenshots at 1400 and 1000 px, one above the other, in one more browser run (the
# picture in docs/ is made the same way: scripts/html-screenshot.sh).
cat >shots.html <<'HTML'
<!DOCTYPE html><html><body style="margin:0;width:1400px">
<iframe src="run.html" width="1400" height="1000" style="border:0;display:block"></iframe>
<iframe src="run.html" width="1000" height="1000" style="border:0;display:block"></iframe>
</body></html>
HTML
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
	--window-size=1400,2000 --virtual-time-budget=5000 --screenshot="$(pwd)/shot.png" \
	"file://$(pwd)/shots.html" >/dev/null 2>&1 || fail "screenshot failed"
python3 -c '
import struct, zlib
b = open("shot.png", "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n" and len(b) > 40000, len(b)
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (1400, 2000), (w, h)
# both halves drawn: the decoded rows of each differ from one another
i, idat = 8, b""
while i < len(b):
    n, kind = struct.unpack(">I4s", b[i:i + 8])
    if kind == b"IDAT":
        idat += b[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(idat)
row = len(raw) // h
for half in (0, 1):
    rows = {raw[r * row:(r + 1) * row] for r in range(half * 1000 + 100, half * 1000 + 900, 4)}
    assert len(rows) > 50, ("half", half, len(rows))
' || fail "the screenshot is not a 1400x2000 PNG of two drawn pages"
exit 0
