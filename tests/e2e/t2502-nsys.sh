#!/bin/sh
# Nsight Systems import: every real export in ../shared/anchors/nsys imports
# without error through gpa_import_nsys, and the .gpz read back by
# `gpuprof info` has as many kernels, copies, sets and API calls as the
# export's own SELECT count(*). Skips when the anchors or python3 are absent.
. "$TOP/tests/e2e/lib.sh"

need_anchors 'nsys/*.sqlite'
anchors=$ANCHORS/nsys
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }

imp=$BUILD/tests/nsys-drive # tests/tools/nsys-drive.c
[ -x "$imp" ] || fail "missing $imp (build first)"

for db in "$anchors"/*.sqlite; do
	name=$(basename "$db" .sqlite)
	"$imp" "$db" "$name.gpz" 2>err || fail "$name: import failed: $(cat err)"
	"$GPUPROF" info "$name.gpz" >info 2>&1 || fail "$name: info failed: $(cat info)"
	grep -q 'integrity   ok' info || fail "$name: $(cat info)"
	want=$(python3 - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
def n(table, where=""):
    return db.execute("SELECT count(*) FROM %s %s" % (table, where)).fetchone()[0] if table in have else 0
out = [("kernel", n("CUPTI_ACTIVITY_KIND_KERNEL")), ("memcpy", n("CUPTI_ACTIVITY_KIND_MEMCPY")),
       ("memset", n("CUPTI_ACTIVITY_KIND_MEMSET")),
       ("api", n("CUPTI_ACTIVITY_KIND_RUNTIME", "WHERE eventClass IN (0, 1)")),
       ("sync", n("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")),
       ("nvtx", n("NVTX_EVENTS", "WHERE eventType IN (34, 59, 60)"))]
print(" ".join("%s=%d" % kv for kv in out))
PY
) || fail "$name: python3 count"
	got=$(sed -n 's/^  records *//p' info | tr -d , | python3 -c '
import sys
words = sys.stdin.read().replace(",", " ").split()
d = dict(zip(words[0::2], words[1::2]))
print(" ".join("%s=%s" % (k, d.get(k, "0")) for k in ("kernel", "memcpy", "memset", "api", "sync", "nvtx")))')
	[ "$got" = "$want" ] || fail "$name: read back '$got', export has '$want'"
done

# Not an export: one clear line, no crash.
echo "not a database" >text.sqlite
"$imp" text.sqlite t.gpz 2>err && fail "a text file imported"
grep -q "text.sqlite: not a readable SQLite database" err || fail "text: $(cat err)"
python3 -c 'import sqlite3; sqlite3.connect("other.sqlite").execute("CREATE TABLE t (a)")'
"$imp" other.sqlite o.gpz 2>err && fail "a non-nsys database imported"
grep -q "other.sqlite: not an Nsight Systems export (no CUPTI_ACTIVITY_KIND_KERNEL or StringIds table)" err ||
	fail "other: $(cat err)"
exit 0
