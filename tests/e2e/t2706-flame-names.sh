#!/bin/sh
# Names full of XML and folded-stack metacharacters (<>&"' ; newline) and
# non-ASCII text, from a Kineto trace: folded lines stay whole, the SVG and
# the speedscope file carry every name exactly.
. "$TOP/tests/e2e/lib.sh"

cat >names.json <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 2, "ts": 100, "dur": 1000},
 {"ph": "X", "cat": "user_annotation", "name": "état <\"a\" & 'b'>; x\ny", "pid": 1, "tid": 2, "ts": 110, "dur": 500},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 120, "dur": 5,
  "args": {"correlation": 11}},
 {"ph": "X", "cat": "kernel", "name": "void ns::k<a&b, \"q\", 'c'>(x<y>) → 核", "pid": 0, "tid": 7, "ts": 200, "dur": 30,
  "args": {"correlation": 11, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 700, "dur": 5,
  "args": {"correlation": 12}},
 {"ph": "X", "cat": "kernel", "name": "plain_kernel", "pid": 0, "tid": 7, "ts": 710, "dur": 20,
  "args": {"correlation": 12, "device": 0, "stream": 7}}
]}
JSON

expect_rc 0 "$GPUPROF" flame names.json
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2706 out
[ "$(wc -l <out)" = 2 ] || fail "a name broke a folded line"
expect_rc 0 "$GPUPROF" flame -o n.svg names.json
expect_rc 0 "$GPUPROF" flame -o n.json names.json
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout n.svg || fail "SVG not well-formed"
fi
python3 - <<'PY' || fail "names"
import json
import xml.etree.ElementTree as ET
k = "void ns::k<a&b, \"q\", 'c'>(x<y>) → 核"
r = "état <\"a\" & 'b'>: x y"
ns = {"s": "http://www.w3.org/2000/svg"}
titles = [g.find("s:title", ns).text for g in ET.parse("n.svg").getroot().find(".//s:g[@id='frames']", ns)]
assert any(t.startswith(k + " (30,000 ns, 60.00%, 1 launch)") for t in titles), titles
assert any(t.startswith(r + " (") for t in titles), titles
names = [f["name"] for f in json.load(open("n.json"))["shared"]["frames"]]
assert k in names and r in names, names
PY
exit 0
