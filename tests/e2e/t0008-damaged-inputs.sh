#!/bin/sh
# Damaged inputs: a file that really ends early is "truncated at offset N"
# and keeps what precedes the cut, also when it is a compact (converted)
# file packed in one chunk; a full-length file with a damaged chunk or
# trailer is "corrupt" at its offset, never "truncated"; a damaged file of
# which nothing could be read is an error (exit 1, no output file). convert
# names what its input is not.
. "$TOP/tests/e2e/lib.sh"

# A compact file of several inner chunks: 20000 kernels from a Kineto trace.
python3 - <<'PY'
import json
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 7, "tid": 7,
       "ts": s * 100000.0, "dur": 90000.0} for s in range(20)]
for i in range(20000):
    ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % (i % 37), "pid": 0, "tid": 7,
               "ts": 1000.0 + i * 97.125, "dur": 50.5 + i % 13,
               "args": {"device": 0, "stream": 7, "correlation": i}})
json.dump({"traceEvents": ev}, open("k.json", "w"))
PY
expect_rc 0 "$GPUPROF" convert k.json k.gpz
size=$(wc -c <k.gpz)
kernels() { "$GPUPROF" info --json "$1" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["files"][0]["records"].get("kernel", 0))'; }
[ "$(kernels k.gpz)" -eq 20000 ] || fail "k.gpz holds $(kernels k.gpz) kernels"

# ---- cut: what precedes the cut is kept, and the message says how much
prev=0
for pct in 50 75 95; do
	cut=$((size * pct / 100))
	head -c "$cut" k.gpz >cut.gpz
	expect_rc 0 "$GPUPROF" report -o r.txt cut.gpz
	grep -q "^gpuprof: warning: cut.gpz: truncated at offset $cut; kept the [0-9]* records before the cut" err ||
		fail "cut at $pct %: $(cat err)"
	n=$(kernels cut.gpz)
	[ "$n" -gt 0 ] && [ "$n" -ge "$prev" ] || fail "cut at $pct % kept $n kernels (before: $prev)"
	[ "$pct" -ne 50 ] || [ "$n" -lt 20000 ] || fail "cut at half kept every kernel"
	prev=$n
	expect_rc 0 "$GPUPROF" info cut.gpz
	# info wraps long lines to the width: read the message with its lines joined.
	tr -s ' \n' '  ' <out |
		grep -q "truncated: the packed chunk needs [0-9]* bytes, the file has [0-9]*; kept the [0-9]* of its [0-9]* inner chunks" ||
		fail "info at $pct %: $(cat out)"
done

# ---- cut before anything whole: an error, and no output file
head -c $((size / 10)) k.gpz >cut.gpz
rm -f r.txt
expect_rc 1 "$GPUPROF" report -o r.txt cut.gpz
[ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
grep -q "^gpuprof: error: cut.gpz: no records could be read: chunk 0 at offset 32: truncated" err ||
	fail "zero records: $(cat err)"
[ ! -e r.txt ] || fail "an output file for nothing read"
expect_rc 1 "$GPUPROF" export --perfetto p.json cut.gpz
[ ! -e p.json ] || fail "an export for nothing read"
expect_rc 1 "$GPUPROF" info cut.gpz
grep -q "no records could be read" err || fail "info: $(cat err)"
# A file of only its header (a writer killed before its first chunk).
head -c 32 k.gpz >hdr.gpz
expect_rc 1 "$GPUPROF" stats hdr.gpz
grep -q "^gpuprof: error: hdr.gpz: no records could be read" err || fail "header only: $(cat err)"

# ---- full length, one chunk damaged: corrupt at its offset, not truncated
python3 - "$size" <<'PY'
import sys
d = bytearray(open("k.gpz", "rb").read())
d[int(sys.argv[1]) // 2] ^= 0x5a
open("flip.gpz", "wb").write(d)
PY
expect_rc 1 "$GPUPROF" report flip.gpz
grep -q "^gpuprof: error: flip.gpz: no records could be read: chunk 0 at offset 32: " err ||
	fail "flipped packed chunk: $(cat err)"
grep -q truncated err && fail "a full-length file called truncated: $(cat err)"
expect_rc 1 "$GPUPROF" info flip.gpz
grep -q "truncated" out err && fail "info calls it truncated: $(cat out err)"
grep -q "corrupt chunk" err || fail "info: $(cat err)"

# A streamed file: a damaged chunk in the middle, and a damaged trailer.
"$TRACEGEN" --seed 9 --steps 4 --kernels 50 --chunk-records 64 -o s.gpz >/dev/null || fail tracegen
ssize=$(wc -c <s.gpz)
off=$("$GPUPROF" dump s.gpz | sed -n 's/^# chunk [0-9]*: [0-9]* kernel records at offset \([0-9]*\)$/\1/p' | sed -n 2p)
python3 - "$off" "$ssize" <<'PY'
import sys
off, size = int(sys.argv[1]), int(sys.argv[2])
d = bytearray(open("s.gpz", "rb").read())
d[off + 60] ^= 0x5a
open("mid.gpz", "wb").write(d)
d = bytearray(open("s.gpz", "rb").read())
d[size - 2] ^= 0x5a
open("trailer.gpz", "wb").write(d)
PY
expect_rc 0 "$GPUPROF" stats mid.gpz
grep -q "^gpuprof: warning: mid.gpz: corrupt at offset $off: 1 chunk skipped" err || fail "mid: $(cat err)"
grep -q truncated err && fail "mid: called truncated: $(cat err)"
expect_rc 1 "$GPUPROF" info trailer.gpz
grep -q "chunk [0-9]* at offset $((ssize - 24)): bad trailer" out || fail "trailer: $(cat out)"
grep -q truncated out err && fail "trailer: called truncated: $(cat out err)"
[ "$(kernels trailer.gpz)" -eq "$(kernels s.gpz)" ] || fail "trailer: records lost"

# ---- convert names what its input is not
: >empty.json
expect_rc 1 "$GPUPROF" convert empty.json o.gpz
grep -qx "gpuprof: error: empty.json: empty file" err || fail "empty: $(cat err)"
expect_rc 1 "$GPUPROF" convert /dev/null o.gpz
grep -qx "gpuprof: error: /dev/null: empty file" err || fail "/dev/null: $(cat err)"
head -c 4096 /dev/urandom | tr '\211{[ ' 'xxxx' >random.bin
expect_rc 1 "$GPUPROF" convert random.bin o.gpz
grep -qx "gpuprof: error: random.bin: not a trace: unrecognised format (neither Kineto JSON nor an Nsight Systems SQLite export)" err ||
	fail "random: $(cat err)"
expect_rc 1 "$GPUPROF" convert s.gpz o.gpz
grep -qx "gpuprof: error: s.gpz: already a gpuprof trace" err || fail "gpz: $(cat err)"
[ ! -e o.gpz ] || fail "convert left an output"
exit 0
