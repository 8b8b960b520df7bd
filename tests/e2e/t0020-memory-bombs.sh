#!/bin/sh
# Bounded memory for any input: small crafted files that inflate far beyond
# their size (tests/tools/gpz-bomb.py: string chunks of 63 MiB deflated to
# 64 KiB, record chunks of 131072 records in 49 bytes, columns that deflate
# 1000 times, a string id near 2^32; a Kineto gzip bomb; an nsys export whose
# string id is near 2^26) are refused with one line naming the file and the
# limit, exit 1, within a bounded peak resident size (trace/FORMAT.md 4.2,
# docs/reliability.md "Memory"); files within the limits still load.
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
BOMB="$TOP/tests/tools/gpz-bomb.py"

# peak KB CMD...: runs CMD (output in out/err), prints its exit status and
# its peak resident set size in KiB.
peak() {
	python3 - "$@" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open("out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC); os.dup2(fd, 1)
    fd = os.open("err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC); os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, st, ru = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(st), ru.ru_maxrss)
PY
}

# bomb NAME CMD...: CMD must exit 1 with one error line naming NAME's file
# and the limit, under LIMIT_KB of peak memory.
LIMIT_KB=$((320 * 1024)) SMALL_KB=$((64 * 1024))
if ldd "$GPUPROF" | grep -q libasan; then
	# AddressSanitizer's shadow and quarantine: the bounds still tell 13 GB from 300 MB
	LIMIT_KB=$((LIMIT_KB * 3)) SMALL_KB=$((SMALL_KB * 4))
fi
refused() {
	what=$1 pattern=$2
	shift 2
	set -- $(peak "$@")
	rc=$1 kb=$2
	[ "$rc" -eq 1 ] || { cat err; fail "$what: exit $rc, expected 1"; }
	[ "$(grep -c . err)" -eq 1 ] || { cat err; fail "$what: not one line on stderr"; }
	grep -q "$pattern" err || { cat err; fail "$what: no '$pattern' in the error"; }
	[ "$kb" -le "$LIMIT_KB" ] || fail "$what: peak $kb KiB, over $LIMIT_KB KiB"
	echo "$what: exit 1, peak $((kb / 1024)) MiB: $(cat err)"
}

python3 "$BOMB" strings s.gpz 4 || fail "gpz-bomb strings"
python3 "$BOMB" records r.gpz 2000 || fail "gpz-bomb records"
python3 "$BOMB" columns c.gpz 64 || fail "gpz-bomb columns"
python3 "$BOMB" ids i.gpz 1 || fail "gpz-bomb ids"

for t in 1 4; do # one thread, and workers decoding ahead
	refused "strings, report --threads $t" \
		"^gpuprof: error: s.gpz: chunk 0 at offset 32: its strings take more than 16777216 bytes, the limit for a file of $(wc -c <s.gpz) bytes (32 per byte, at least 16777216); not read further$" \
		"$GPUPROF" report --threads $t s.gpz
	refused "records, report --threads $t" \
		"^gpuprof: error: r.gpz: chunk 8 at offset 424: its chunks hold more than 1048576 records, the limit for a file of $(wc -c <r.gpz) bytes (8 per byte, at least 1048576); not read further$" \
		"$GPUPROF" report --threads $t r.gpz
	refused "columns, gaps --threads $t" "c.gpz: chunk 8 at offset .*: its chunks hold more than 1048576 records" \
		"$GPUPROF" gaps --threads $t c.gpz
done
refused "strings, info" "s.gpz: chunk 0 at offset 32: its strings take more than" "$GPUPROF" info s.gpz
refused "records, info" "r.gpz: chunk 8 at offset 424: its chunks hold more than" "$GPUPROF" info r.gpz

# A string id near 2^32 that no chunk defines: no table up to it; it loads
# (cut short, no footer) and the name shows as missing.
set -- $(peak "$GPUPROF" stats --report cuda_gpu_kern_sum --format csv i.gpz)
[ "$1" -eq 0 ] || { cat err; fail "ids: exit $1"; }
[ "$2" -le "$SMALL_KB" ] || fail "ids: peak $2 KiB"
grep -q "missing string 42949670[04]0" out || { cat out; fail "ids: the missing name is not shown"; }

# A Kineto gzip bomb: 3,000,000 events, 358 MB of JSON in about 1.2 MB.
python3 - <<'PY'
import gzip
ev = ('{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1000.0,"dur":5.0,'
      '"args":{"device":0,"stream":7,"correlation":1}},').encode()
with gzip.open("k.json.gz", "wb", compresslevel=9) as f:
    f.write(b'{"traceEvents":[')
    f.write(ev * 3000000)
    f.write(ev[:-1] + b']}')
PY
refused "kineto gzip bomb" \
	"^gpuprof: error: k.json.gz: line 1 (byte [0-9]*): gzip data inflates more than 128 times ([0-9]* bytes from [0-9]*): not read further$" \
	"$GPUPROF" report k.json.gz
refused "kineto gzip bomb, convert" "k.json.gz: .*gzip data inflates more than 128 times" \
	"$GPUPROF" convert k.json.gz k.gpz
[ ! -e k.gpz ] || fail "convert left k.gpz"

# An nsys export whose one kernel names string id 60,000,000: the string id
# cache stays within the file's size (before: 2^26 ids, 256 MiB).
python3 - <<'PY'
import sqlite3
db = sqlite3.connect("n.sqlite")
db.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, "end" INTEGER, deviceId INTEGER,
  streamId INTEGER, correlationId INTEGER, shortName INTEGER, gridX INTEGER);
INSERT INTO StringIds VALUES (60000000, 'gemm');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 1000, 0, 7, 100, 60000000, 128);
""")
db.commit()
PY
set -- $(peak "$GPUPROF" stats --report cuda_gpu_kern_sum --format csv n.sqlite)
[ "$1" -eq 0 ] || { cat err; fail "nsys string id: exit $1"; }
grep -q gemm out || { cat out; fail "nsys string id: the kernel name is not gemm"; }
[ "$2" -le "$SMALL_KB" ] || fail "nsys string id: peak $2 KiB (the id cache grew with the id)"
echo "nsys string id 60000000: exit 0, peak $(($2 / 1024)) MiB"

# Within the limits: a small file of many regular records (tracegen's NCCL
# steps with short kernels: 15 records per byte, under the 2^20 floor) and a
# Kineto trace of 20,000 events gzipped 300 times load.
"$TRACEGEN" --nccl --steps 100 --nccl-fill 2000 -o fill.gpz >/dev/null || fail "tracegen"
expect_rc 0 "$GPUPROF" report fill.gpz
python3 - <<'PY'
import gzip
ev = ('{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1000.0,"dur":5.0,'
      '"args":{"device":0,"stream":7,"correlation":1}},').encode()
with gzip.open("small.json.gz", "wb", compresslevel=9) as f:
    f.write(b'{"traceEvents":[' + ev * 20000 + ev[:-1] + b']}')
PY
expect_rc 0 "$GPUPROF" report small.json.gz
echo ok
