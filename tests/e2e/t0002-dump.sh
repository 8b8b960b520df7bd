#!/bin/sh
# gpuprof dump: every record once, text and JSON Lines agree with info's counts.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 3 --steps 2 --kernels 10 --copies 1 --all-kinds --chunk-records 7 -o a.gpz >/dev/null ||
	fail "tracegen"
expect_rc 0 "$GPUPROF" dump --json a.gpz
mv out dump.jsonl
expect_rc 0 "$GPUPROF" info --json a.gpz
python3 - <<'PY' || fail "dump and info disagree"
import json, collections
info = json.load(open("out"))["files"][0]
counts = collections.Counter()
for line in open("dump.jsonl"):
    rec = json.loads(line)
    counts[rec["kind"]] += 1
assert dict(counts) == info["records"], (dict(counts), info["records"])
PY
expect_rc 0 "$GPUPROF" dump a.gpz
head -n 12 out >head.txt
golden t0002 head.txt
# Text lines per kind match JSON lines per kind.
[ "$(grep -c '^kernel ' out)" -eq "$(grep -c '"kind":"kernel"' dump.jsonl)" ] || fail "kernel counts"

expect_rc 0 "$GPUPROF" dump --kind kernel,nvtx --json a.gpz
grep -v -e '"kind":"kernel"' -e '"kind":"nvtx"' out && fail "--kind let other kinds through"
[ -s out ] || fail "--kind printed nothing"
expect_rc 2 "$GPUPROF" dump --kind nosuch a.gpz
grep -q "unknown record kind 'nosuch'" err || fail "bad kind message"
exit 0
