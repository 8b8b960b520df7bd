#!/bin/sh
# The report's warnings are the same lines in every format: each warning of the
# JSON report (the overview's and what the efficiency sections estimated) is in
# the text, Markdown and HTML reports too, on an anchor that has both kinds.
. "$TOP/tests/e2e/lib.sh"

a=kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz
need_anchors "$a"
for f in text markdown json html; do
	expect_rc 0 "$GPUPROF" report --format $f --wide -o "r.$f" "$ANCHORS/$a"
done
python3 - <<'PY' || fail "warnings differ between formats"
import html, json, re
w = json.load(open("r.json"))["warnings"]
assert len(w) >= 2, w
assert any(x.startswith("Occupancy of ") for x in w), w  # an estimate, once HTML's alone
text = open("r.text", encoding="utf-8").read()
text = re.sub(r"\n +", " ", text.split("\nWarnings\n", 1)[1])
md = open("r.markdown", encoding="utf-8").read().split("## Warnings\n", 1)[1]
page = html.unescape(open("r.html", encoding="utf-8").read())
page = page[page.index('id="sec-warnings"'):]
for x in w:
    assert x in text, ("text", x)
    assert "- " + x in md, ("markdown", x)
    assert "<li>" + x + "</li>" in page, ("html", x)
PY
exit 0
