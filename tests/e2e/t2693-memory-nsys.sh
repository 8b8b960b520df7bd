#!/bin/sh
# nsys CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage=true) into
# gpuprof memory: the one nsys anchor with the table has no rows, so rows
# with a known pattern are added to a copy of it: 100 MiB and 50 MiB
# allocated, the 100 MiB released, 10 MiB allocated. nsys gives no totals:
# they are rebuilt, the peak is 150 MiB at the second allocation.
. "$TOP/tests/e2e/lib.sh"

need_anchors nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
command -v sqlite3 >/dev/null 2>&1 || exit 77
command -v python3 >/dev/null 2>&1 || exit 77
cp "$ANCHORS/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite" m.sqlite || fail "copy"
chmod u+w m.sqlite
row=$(sqlite3 m.sqlite "SELECT min(start), globalPid, deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL
	GROUP BY globalPid, deviceId ORDER BY count(*) DESC LIMIT 1") || fail "anchor kernels"
t0=${row%%|*}
rest=${row#*|}
gpid=${rest%%|*}
dev=${rest#*|}
M=1048576
sqlite3 m.sqlite "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
	(start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType)
	VALUES ($t0 + 1000, $gpid, $dev, 1, 4096000, 0, 100 * $M, 2, 0),
	       ($t0 + 2000, $gpid, $dev, 1, 8192000, 0, 50 * $M, 2, 0),
	       ($t0 + 3000, $gpid, $dev, 1, 4096000, 0, 100 * $M, 2, 1),
	       ($t0 + 4000, $gpid, $dev, 1, 4096000, 0, 10 * $M, 2, 0)" || fail "insert"

expect_rc 0 "$GPUPROF" memory --format json m.sqlite
python3 - "$dev" <<'PY' || fail "nsys memory events"
import json, sys
MIB = 1 << 20
r = json.load(open("out"))
assert r["events"] == 4, r["events"]
d = r["devices"]
assert len(d) == 1 and d[0]["device"] == "cuda:%s" % sys.argv[1], d
assert d[0]["peak_allocated_bytes"] == 150 * MIB and d[0]["totals"] == "rebuilt", d
assert d[0]["reserved_at_peak_bytes"] is None, d
own = r["owners"]
assert sum(o["bytes"] for o in own) == 150 * MIB, own
PY
expect_rc 0 "$GPUPROF" memory --table timeline --format csv m.sqlite
[ "$(tail -n 1 out | cut -d, -f3-5)" = "alloc,10485760,62914560" ] ||
	fail "last timeline row: $(tail -n 1 out)"
exit 0
