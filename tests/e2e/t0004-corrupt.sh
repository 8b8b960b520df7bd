#!/bin/sh
# Corrupt input: one-line error naming the file and the problem, exit 1,
# and the chunks around the damage still read.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 9 --steps 4 --kernels 50 --chunk-records 64 -o good.gpz >/dev/null || fail tracegen
size=$(wc -c <good.gpz)

# Flip one byte inside the payload of the second kernel chunk.
off=$("$GPUPROF" dump good.gpz | sed -n 's/^# chunk [0-9]*: [0-9]* kernel records at offset \([0-9]*\)$/\1/p' | sed -n 2p)
[ -n "$off" ] || fail "no second kernel chunk"
python3 - "$off" <<'PY'
import sys
d = bytearray(open("good.gpz", "rb").read())
d[int(sys.argv[1]) + 60] ^= 0x5a
open("bad.gpz", "wb").write(d)
PY
expect_rc 1 "$GPUPROF" info bad.gpz
[ "$(grep -c '^gpuprof: error: bad.gpz: ' err)" -eq 1 ] || fail "expected one error line: $(cat err)"
grep -q "corrupt chunk" err || fail "error does not say corrupt: $(cat err)"
good_events=$("$GPUPROF" info --json good.gpz | python3 -c 'import json,sys; print(json.load(sys.stdin)["files"][0]["events"])')
bad_events=$("$GPUPROF" info --json bad.gpz 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["files"][0]["events"])')
[ "$bad_events" -gt 0 ] && [ "$bad_events" -lt "$good_events" ] ||
	fail "expected some but not all events: $bad_events of $good_events"

expect_rc 1 "$GPUPROF" dump bad.gpz
grep -q "^gpuprof: error: bad.gpz: chunk [0-9]* at offset [0-9]*: " err || fail "dump error: $(cat err)"

# Not a trace at all.
echo "hello" >text.gpz
expect_rc 1 "$GPUPROF" info text.gpz
grep -qx "gpuprof: error: text.gpz: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite file" err || fail "magic: $(cat err)"
: >empty.gpz
expect_rc 1 "$GPUPROF" info empty.gpz
grep -q "^gpuprof: error: empty.gpz: " err || fail "empty: $(cat err)"

# A newer major version is refused with a message saying so.
python3 - <<'PY'
import struct, zlib
d = bytearray(open("good.gpz", "rb").read())
d[8:10] = struct.pack("<H", 3)
d[28:32] = struct.pack("<I", zlib.crc32(bytes(d[:28])))
open("v2.gpz", "wb").write(d)
PY
expect_rc 1 "$GPUPROF" info v2.gpz
grep -q "newer than this gpuprof reads" err || fail "version: $(cat err)"

# A missing file and a directory.
expect_rc 1 "$GPUPROF" info nosuch.gpz
grep -q "^gpuprof: error: nosuch.gpz: cannot open: No such file or directory" err || fail "$(cat err)"
mkdir dir.gpz
expect_rc 1 "$GPUPROF" info dir.gpz
grep -q "not a regular file" err || fail "$(cat err)"
exit 0
