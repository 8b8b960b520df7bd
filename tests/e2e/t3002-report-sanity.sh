#!/bin/sh
# Implausible data is reported, never silently taken: a GPU operation that ends
# before it starts or lasts more than a day, kernel launch calls without a
# single kernel record (an nsys export whose kernel table is missing), and the
# same trace given twice. Each is a warning with its count in every format of
# `gpuprof report` (text, Markdown, JSON with its "sanity" counts, HTML) and
# in every output of `gpuprof diff` (text, Markdown, JSON, JUnit).
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }

# Kineto: one kernel of 1e12 us (11.6 days), one of -5 us, one plain.
cat >k.json <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100.0, "dur": 1000000000000,
  "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 100.0, "dur": -5,
  "args": {"device": 0, "stream": 7, "correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 200.0, "dur": 5,
  "args": {"device": 0, "stream": 7, "correlation": 3}}
]}
JSON
for f in text markdown html; do
	expect_rc 0 "$GPUPROF" report -f "$f" -o "k.$f" k.json
	grep -q "1 GPU operations or API calls end before they start" "k.$f" ||
		fail "$f: negative duration not reported"
	grep -q "1 GPU operations or API calls last longer than a day (the longest 1000000 s)" \
		"k.$f" || fail "$f: absurd duration not reported"
done
expect_rc 0 "$GPUPROF" report -f json -o k.json.out k.json
python3 - k.json.out <<'PY' || fail "json sanity counts"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sanity"]
assert s["negative_durations"] == 1 and s["absurd_durations"] == 1, s
assert s["absurd_max_ns"] == 10**15, s
assert any("longer than a day" in w for w in d["warnings"]), d["warnings"]
PY

# A clean trace: all counts 0, no such warning. Given twice: read once, said.
"$TRACEGEN" --steps 2 --kernels 4 -o t.gpz >/dev/null || fail tracegen
cp t.gpz u.gpz
expect_rc 0 "$GPUPROF" report -f json -o t.out t.gpz
python3 - t.out <<'PY' || fail "clean trace"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d["sanity"].values()) == {0}, d["sanity"]
PY
expect_rc 0 "$GPUPROF" report -f json -o tu.out t.gpz u.gpz
python3 - tu.out <<'PY' || fail "duplicate input"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sanity"]["duplicate_inputs"] == 1, d["sanity"]
assert d["sanity"]["duplicate_files_not_read"] == 1, d["sanity"]
assert any("u.gpz is the same trace as t.gpz (the same bytes)" in w and
	   "1 input repeats an earlier one and is not read again" in w
	   for w in d["warnings"]), d["warnings"]
PY
expect_rc 0 "$GPUPROF" report t.gpz u.gpz
grep -q "u.gpz is the same trace as t.gpz" out || fail "text: duplicate input not reported"

# diff: a run given twice is said in every output.
expect_rc 0 "$GPUPROF" diff --junit d.xml --markdown d.md --json d.json t.gpz u.gpz -- t.gpz
for f in out d.xml d.md d.json; do
	grep -q "u.gpz is the same run as t.gpz" "$f" || fail "diff $f: duplicate run not said"
done

# nsys: the kernel table dropped from a real export whose runtime rows launch kernels.
src=$ANCHORS/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
if have_anchors nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite; then
	python3 - "$src" nok.sqlite <<'PY' || fail "making the export without kernels"
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL")
db.commit()
PY
	n=$(python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute(\"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId \"
	\"WHERE s.value LIKE 'cu%Launch%Kernel%' AND r.eventClass IN (0, 1)\").fetchone()[0])" "$src")
	[ "$n" -gt 0 ] || fail "no launches counted in the source"
	expect_rc 0 "$GPUPROF" report -f markdown nok.sqlite
	grep -q "$n kernel launch calls but no kernel record in 1 process" out ||
		fail "missing kernel table not reported ($n launches): $(grep -i kernel out | head -3)"
	expect_rc 0 "$GPUPROF" report -f markdown "$src"
	grep -q "no kernel record" out && fail "kernel table reported missing on the original"
fi
echo ok
