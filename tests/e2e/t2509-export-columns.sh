#!/bin/sh
# gpuprof export --sqlite on every real nsys export: each column of each table
# we write equals the source's (rows paired in time order, times relative to
# the table's first row, string ids resolved), or is listed in docs/export.md
# ("Columns that differ from the source") with the reason. Needs python3.
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
need_anchors 'nsys/*.sqlite'

# The documented differences: "TABLE COLUMN" pairs of the table in docs/export.md.
python3 - "$TOP/docs/export.md" >documented <<'PY' || fail "reading docs/export.md"
import re, sys
text = open(sys.argv[1]).read()
sec = text.split("## Columns that differ from the source", 1)[1].split("\n## ", 1)[0]
for line in sec.splitlines():
	cells = [c.strip() for c in line.strip().strip("|").split("|")]
	if len(cells) < 4 or not cells[0].startswith("`"):
		continue
	for t in re.findall(r"`([A-Za-z_]+)`", cells[0]):
		for c in re.split(r",\s*", cells[1]):
			print(t, c.split()[0] if c else c)
PY
[ -s documented ] || fail "no documented differences found in docs/export.md"

n=0
for f in "$ANCHORS"/nsys/*.sqlite "$ANCHORS"/nsys-synthetic/*.sqlite; do
	[ -e "$f" ] || continue
	b=$(basename "$f" .sqlite)
	expect_rc 0 "$GPUPROF" export --sqlite "$b.out.sqlite" "$f"
	python3 "$TOP/tests/e2e/export-columns.py" "$f" "$b.out.sqlite" >"$b.diff" ||
		fail "$b: comparison failed"
	while read -r table col rest; do
		# "qmd*" in the docs stands for every column of that prefix
		grep -qx "$table $col" documented && continue
		grep "^$table .*\*\$" documented | while read -r t p; do
			case "$col" in "${p%\*}"*) echo ok ;; esac
		done | grep -q ok && continue
		fail "$b: $table $col $rest: not equal to the source and not in docs/export.md"
	done <"$b.diff"
	n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "only $n nsys anchors compared"

# What the round trip must keep (the columns this test was written for).
S=$ANCHORS/nsys/mfu_2gpu_after.sqlite
if [ -e "$S" ]; then
	grep -q "mangledName\|SYNCHRONIZATION deviceId\|SYNCHRONIZATION contextId" \
		mfu_2gpu_after.diff && fail "mangledName or sync columns differ: $(cat mfu_2gpu_after.diff)"
	# one row per kernel name when grouped by mangledName, none nameless
	python3 - mfu_2gpu_after.out.sqlite <<'PY' || fail "kernels grouped by mangledName"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
assert db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE mangledName IS NULL").fetchone()[0] == 0
PY
fi
echo ok
