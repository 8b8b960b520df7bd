#!/bin/sh
# gpuprof export --sqlite: the cuda_gpu_kern_sum query in plain SQL (group
# by kernel name through StringIds: sum, count, avg, min, max of end-start)
# gives the same rows on each real nsys export and on our export of it, and
# on a generated trace the same numbers as `gpuprof stats`. Errors (existing
# output, unwritable path, unreadable trace) are one line and exit 1, with
# no output left behind. Needs python3 (skips without it).
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }

cat >kern_sum.py <<'PY'
import sqlite3, sys
Q = """SELECT s.value, sum(k.end - k.start), count(*), avg(k.end - k.start),
	min(k.end - k.start), max(k.end - k.start)
FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName
GROUP BY s.value ORDER BY s.value"""
for row in sqlite3.connect(sys.argv[1]).execute(Q):
	print("%s|%d|%d|%.1f|%d|%d" % row)
PY

# A generated trace: our export against the model's own numbers.
"$TRACEGEN" --steps 3 --kernels 30 --all-kinds -o t.gpz >/dev/null || fail "tracegen"
expect_rc 0 "$GPUPROF" export --sqlite t.sqlite t.gpz
python3 kern_sum.py t.sqlite >ours || fail "query on t.sqlite"
"$GPUPROF" stats -r cuda_gpu_kern_sum -f csv t.gpz >stats.csv || fail "stats"
python3 - stats.csv >model <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
out = sorted((r[8], int(r[1]), int(r[2]), float(r[3]), int(r[5]), int(r[6])) for r in rows if r)
for r in out:
	print("%s|%d|%d|%.1f|%d|%d" % r)
PY
[ -s ours ] || fail "no kernels in the export"
diff -u model ours || fail "export differs from gpuprof stats"
python3 - t.sqlite <<'PY' || fail "schema check"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tabs = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
need = ["StringIds", "META_DATA_EXPORT", "TARGET_INFO_SESSION_START_TIME", "ANALYSIS_DETAILS",
	"TARGET_INFO_GPU", "PROCESSES", "ThreadNames", "CUPTI_ACTIVITY_KIND_KERNEL",
	"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
	"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "ENUM_CUDA_MEMCPY_OPER",
	"ENUM_CUDA_MEM_KIND", "ENUM_NSYS_EVENT_TYPE", "ENUM_NSYS_EVENT_CLASS", "ENUM_CUPTI_SYNC_TYPE"]
missing = [t for t in need if t not in tabs]
assert not missing, missing
# PID/TID arithmetic of the nsys docs works on our packed ids.
pid = db.execute("SELECT pid, globalPid / 16777216 % 16777216 FROM PROCESSES").fetchone()
assert pid[0] == pid[1], pid
n = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN PROCESSES p "
	       "ON r.globalTid / 16777216 % 16777216 = p.pid").fetchone()[0]
assert n == db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0] and n > 0
# Every kernel's API call is found by correlationId, as in nsys.
assert db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
		  "CUPTI_ACTIVITY_KIND_RUNTIME r USING (correlationId)").fetchone()[0] > 0
v = db.execute("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'")
assert v.fetchone()[0].startswith("3.")
PY

# Errors: one line, exit 1, nothing left behind.
expect_rc 1 "$GPUPROF" export --sqlite t.sqlite t.gpz
[ "$(wc -l <err)" -eq 1 ] && grep -q "already exists" err || fail "existing output: $(cat err)"
expect_rc 0 "$GPUPROF" export --force --sqlite t.sqlite t.gpz
expect_rc 1 "$GPUPROF" export --sqlite nodir/x.sqlite t.gpz
[ "$(wc -l <err)" -eq 1 ] || fail "unwritable path: $(cat err)"
echo garbage >bad.gpz
expect_rc 1 "$GPUPROF" export --sqlite bad.sqlite bad.gpz
[ "$(wc -l <err)" -eq 1 ] && [ ! -e bad.sqlite ] || fail "unreadable trace: $(cat err)"
expect_rc 2 "$GPUPROF" export t.gpz
expect_rc 2 "$GPUPROF" export --sqlite y.sqlite

# Real nsys exports: the same SQL gives the same rows after the round trip.
anchors=$ANCHORS/nsys
if ! have_anchors 'nsys/*.sqlite'; then
	echo "skip: no $anchors (generated trace checked)"
	exit 0
fi
for f in "$anchors"/*.sqlite; do
	b=$(basename "$f" .sqlite)
	expect_rc 0 "$GPUPROF" export --sqlite "$b.out.sqlite" "$f"
	python3 kern_sum.py "$f" >"$b.nsys" || fail "query on $f"
	python3 kern_sum.py "$b.out.sqlite" >"$b.ours" || fail "query on our export of $b"
	[ -s "$b.nsys" ] || fail "$b: no kernels"
	diff -u "$b.nsys" "$b.ours" || fail "$b: kernel summary differs after the round trip"
done
exit 0
