#!/bin/sh
# Memory kinds from an nsys export: nsys numbers them from 0 = pageable
# (its ENUM_CUDA_MEM_KIND table), CUPTI and the model from 0 = unknown,
# 1 = pageable. Import and the SQLite export must translate both ways.
. "$TOP/tests/e2e/lib.sh"

need_anchors nsys/mock.sqlite
anchors=$ANCHORS
db=$anchors/nsys/mock.sqlite
command -v sqlite3 >/dev/null 2>&1 || exit 77

# The anchor's own enum table says what its numbers mean.
kinds=$(sqlite3 "$db" "SELECT k || ' ' || count(*) FROM (SELECT s.label || '->' || d.label AS k
	FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEM_KIND s ON s.id = m.srcKind
	JOIN ENUM_CUDA_MEM_KIND d ON d.id = m.dstKind) GROUP BY k ORDER BY k")
[ -n "$kinds" ] || fail "no copies in the anchor"

expect_rc 0 "$GPUPROF" stats --report cuda_gpu_trace --format json "$db"
python3 - "$kinds" <<'PY' || fail "imported memory kinds differ from the anchor's enum table"
import json, sys, collections
rows = json.load(open("out"))["reports"][0]["rows"]
c = collections.Counter("%s->%s" % (r["src_mem_kind"], r["dst_mem_kind"]) for r in rows if r.get("src_mem_kind"))
got = "\n".join("%s %d" % kv for kv in sorted(c.items()))
want = sys.argv[1].strip()
assert got == want, (got, want)
PY

# The export writes nsys's numbers back: same counts per (srcKind, dstKind, copyKind).
expect_rc 0 "$GPUPROF" export --sqlite out.sqlite "$db"
q="SELECT srcKind, dstKind, copyKind, count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1,2,3 ORDER BY 1,2,3"
[ "$(sqlite3 out.sqlite "$q")" = "$(sqlite3 "$db" "$q")" ] ||
	fail "export memory kinds: $(sqlite3 out.sqlite "$q") vs $(sqlite3 "$db" "$q")"
# Memsets: the same kinds where the anchor has any; none written where it has none.
has=$(sqlite3 "$db" "SELECT count(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_MEMSET'")
q="SELECT memKind, count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET GROUP BY 1 ORDER BY 1"
if [ "$has" = 1 ]; then
	[ "$(sqlite3 out.sqlite "$q")" = "$(sqlite3 "$db" "$q")" ] || fail "export memset kinds"
else
	n=$(sqlite3 out.sqlite "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET" 2>/dev/null || echo 0)
	[ "${n:-0}" = 0 ] || fail "$n memsets exported from an anchor with none"
fi
exit 0
