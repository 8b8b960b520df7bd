#!/bin/sh
# gpuprof flame SVG: well-formed XML (xmllint), and in headless Chromium the
# script runs, a search highlights exactly the frames whose names match and
# reports their share, and a zoom spreads the chosen frame over the width.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 8 --copies 1 --devices 2 --all-kinds -o a.gpz \
	>/dev/null || fail "tracegen"
expect_rc 0 "$GPUPROF" flame --min-width 0 -o a.svg a.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
expect_rc 0 "$GPUPROF" flame a.gpz
mv out a.folded
expect_rc 0 "$GPUPROF" flame --inverted --title 'T <&> "x"' -o inv.svg a.gpz
expect_rc 0 "$GPUPROF" flame -o diff.svg --diff a.gpz -- a.gpz
expect_rc 0 "$GPUPROF" flame --by-step --min-width 0 -o steps.svg a.gpz

if command -v xmllint >/dev/null 2>&1; then
	for f in a.svg inv.svg diff.svg; do
		xmllint --noout "$f" || fail "$f is not well-formed"
	done
fi
# Python's parser as well (always there): frames, titles, one frame per tree node.
python3 - <<'PY' || fail "SVG structure"
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse("a.svg").getroot()
frames = root.find(".//s:g[@id='frames']", ns)
gs = list(frames)
prefixes = set()
for line in open("a.folded"):
    st = line.rsplit(" ", 1)[0].split(";")
    for i in range(1, len(st) + 1):
        prefixes.add(tuple(st[:i]))
assert len(gs) == len(prefixes) + 1, (len(gs), len(prefixes))  # + the root, "all"
t = root.find(".//s:title", ns)
for g in gs:
    assert g.find("s:title", ns).text and g.find("s:rect", ns) is not None
assert ET.parse("inv.svg").getroot().find(".//s:text[@id='title']", ns).text == 'T <&> "x"'
# The steps merge into one frame by default; --by-step keeps a frame per step.
titles = [g.find("s:title", ns).text for g in gs]
assert any(t.startswith("ProfilerStep#* (") for t in titles), titles
assert not any(t.startswith("ProfilerStep#1 (") for t in titles), titles
st = ET.parse("steps.svg").getroot().find(".//s:g[@id='frames']", ns)
st = [g.find("s:title", ns).text for g in st]
for n in range(3):
    assert any(t.startswith("ProfilerStep#%d (" % n) for t in st), (n, st)
# The controls are in sight: Reset Zoom and Search shown at full strength, a hint
# on the details line, and that line right under the root frame.
texts = {t.get("id"): t for t in root.iter("{http://www.w3.org/2000/svg}text")}
assert "hide" not in (texts["unzoom"].get("class") or ""), texts["unzoom"].attrib
assert "hide" not in (texts["search"].get("class") or "")
style = root.find(".//s:style", ns).text
assert "opacity: 0.1" not in style, style
assert texts["details"].text.strip(), "no hint on the details line"
rects = [g.find("s:rect", ns) for g in gs]
root_bottom = max(float(r.get("y")) + float(r.get("height")) for r in rects)
assert float(texts["details"].get("y")) - root_bottom < 20, (texts["details"].get("y"), root_bottom)
PY

browser_checks || exit 0
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || { echo "chromium not installed" >&2; exit 77; }

dom() { # URL-suffix OUT [SVG]
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$PWD/profile" --dump-dom "file://$PWD/${3:-a.svg}$1" >"$2" 2>chrome.err ||
		fail "chromium failed: $(tail -n 3 chrome.err)"
	grep -q 'data-ready="1"' "$2" || fail "the SVG's script did not run"
}

# Search: 'gemm|nccl' must light up exactly the matching frames.
dom '?s=gemm%7Cnccl' search.dom
python3 - <<'PY' || fail "search"
import re
dom = open("search.dom").read()
frames = re.findall(r'<g[^>]*><title>(.*?)</title><rect ([^>]*)>', dom, re.S)
def name(t):
    t = t.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    return t[: t.rindex(" (")]
lit = [name(t) for t, r in frames if 'fill="rgb(230,0,230)"' in r]
want = [name(t) for t, r in frames if re.search("gemm|nccl", name(t))]
assert lit and sorted(lit) == sorted(want), (lit, want)
# The share: stacks with any matching frame, over all GPU time.
tot = hit = 0
for line in open("a.folded"):
    st, c = line.rsplit(" ", 1)
    tot += int(c)
    if any(re.search("gemm|nccl", f) for f in st.split(";")):
        hit += int(c)
m = re.search(r'data-matched="([0-9.]+)"', dom)
assert m, "no matched share"
assert abs(float(m.group(1)) - 100.0 * hit / tot) < 0.05, (m.group(1), 100.0 * hit / tot)
assert re.search(r'id="matched"[^>]*>Matched: ' + re.escape(m.group(1)) + '%<', dom)
PY

# Zoom on ProfilerStep#1 (a graph by step) through the x/y parameters.
xy=$(python3 - <<'PY'
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
for g in ET.parse("steps.svg").getroot().find(".//s:g[@id='frames']", ns):
    if g.find("s:title", ns).text.startswith("ProfilerStep#1 ("):
        r = g.find("s:rect", ns)
        print("?x=%s&y=%s" % (r.get("x"), r.get("y")))
        break
PY
)
[ -n "$xy" ] || fail "no ProfilerStep#1 frame"
dom "$xy" zoom.dom steps.svg
python3 - <<'PY' || fail "zoom"
import re
dom = open("zoom.dom").read()
frames = re.findall(r'<g( class="[^"]*")?><title>(.*?)</title><rect ([^>]*)>', dom, re.S)
def attr(r, a):
    return float(re.search(a + r'="([-0-9.]+)"', r).group(1))
step = [(c, r) for c, t, r in frames if t.startswith("ProfilerStep#1 (")]
assert len(step) == 1
c, r = step[0]
assert abs(attr(r, "x") - 10) < 0.01 and abs(attr(r, "width") - 1180) < 0.01, r
y0 = attr(r, "y")
shown = [(c, t, r) for c, t, r in frames if "hide" not in c]
hidden = [t for c, t, r in frames if "hide" in c]
assert hidden, "nothing hidden"
assert not any(t.startswith("ProfilerStep#0 (") or t.startswith("ProfilerStep#2 (") for c, t, r in shown)
parents = [t for c, t, r in shown if "parent" in c]
assert any(t.startswith("all (") for t in parents), parents
# Frames above the step (its subtree) fit inside the full width.
for c, t, r in shown:
    if attr(r, "y") < y0:
        assert attr(r, "x") >= 9.99 and attr(r, "x") + attr(r, "width") <= 1190.01, (t, r)
assert "data-zoom" in dom
# Zoomed: Reset Zoom is live (not dimmed).
assert re.search(r'<text id="unzoom"( class="")? ', dom), re.search(r'<text id="unzoom"[^>]*>', dom).group(0)
PY
exit 0
