#!/bin/sh
# Kineto JSON that is malformed, cut or corrupt: gpuprof convert exits 1 with
# one "gpuprof: error: FILE: ..." line naming the place, leaves no output file,
# and never crashes. Generated inputs always; a real anchor cut and damaged
# at many places when ../shared/anchors is there.
. "$TOP/tests/e2e/lib.sh"

# bad NAME WANT-IN-MESSAGE: convert NAME must fail cleanly
bad() {
	rm -f o.gpz
	expect_rc 1 "$GPUPROF" convert "$1" o.gpz
	[ "$(wc -l <err)" -eq 1 ] || fail "$1: not one line: $(cat err)"
	grep -q "^gpuprof: error: $1: " err || fail "$1: $(cat err)"
	grep -q -- "$2" err || fail "$1: no '$2' in: $(cat err)"
	[ ! -e o.gpz ] || fail "$1: left o.gpz behind"
}

ev='{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.5, "dur": 2}'
printf '{"traceEvents": [\n%s,\n{"ph": "X", "cat": "kernel", "name": "a\\qb"}]}' "$ev" >esc.json
bad esc.json "line 3 (byte .*): bad escape"
printf '{"traceEvents": [%s,]}' "$ev" >comma.json
bad comma.json "unexpected ']', expected a value"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "\377"}]}' >utf8.json
bad utf8.json "invalid UTF-8"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 012}]}' >num.json
bad num.json "malformed number"
printf '{"traceEvents": [%s' "$ev" >cut.json
bad cut.json "ends early"
python3 -c 'import sys; sys.stdout.write("{\"traceEvents\": [], \"x\": " + "[" * 200 + "]" * 200 + "}")' >deep.json
bad deep.json "nesting deeper than"
# a name over the 1 MiB limit is refused; the same string under a skipped key is not read
python3 -c 'import sys; sys.stdout.write("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + "n" * (3 << 20) + "\", \"ts\": 1, \"dur\": 1}]}")' >long.json
bad long.json "longer than 1048576 bytes"
python3 -c 'import sys; sys.stdout.write("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"stack\": \"" + "s" * (3 << 20) + "\"}}]}")' >skip.json
expect_rc 0 "$GPUPROF" convert skip.json o.gpz
# gzip: cut, and garbage behind a member
printf '{"traceEvents": [%s]}' "$ev" | gzip -c >ok.json.gz
head -c 30 ok.json.gz >cutgz.json.gz
bad cutgz.json.gz "gzip stream ends early"
{ cat ok.json.gz; printf 'junk'; } >junk.json.gz
bad junk.json.gz "garbage after gzip member"
{ cat ok.json.gz ok.json.gz; } >two.json.gz
expect_rc 1 "$GPUPROF" convert two.json.gz o.gpz # two members: two top-level values
grep -q "expected the end of the JSON" err || fail "two members: $(cat err)"

have_anchors kineto/hta/nccl_parser_config/nccl_data.json.gz || exit 0
a=$ANCHORS/kineto/hta/nccl_parser_config/nccl_data.json.gz
size=$(wc -c <"$a")
for k in 1 2 3 5 8 13 21 34 55 89; do
	cut=$((size * k / 100))
	head -c "$cut" "$a" >c.json.gz
	rm -f o.gpz
	"$GPUPROF" convert c.json.gz o.gpz >out 2>err
	rc=$?
	[ "$rc" -eq 1 ] || fail "cut at $cut: exit $rc: $(cat err)"
	grep -q "^gpuprof: error: c.json.gz: .*bad gzip data" err || fail "cut at $cut: $(cat err)"
	[ ! -e o.gpz ] || fail "cut at $cut: left o.gpz"
	# a damaged byte inside the deflate data
	python3 - "$a" "$cut" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[2])] ^= 0x5a
open("d.json.gz", "wb").write(b)
PY
	"$GPUPROF" convert d.json.gz o.gpz >out 2>err
	rc=$?
	# inflate usually fails; when the flipped bits still inflate, the JSON or the CRC check fails
	[ "$rc" -eq 1 ] || fail "byte $cut flipped: exit $rc: $(cat err)"
	grep -q "^gpuprof: error: d.json.gz: " err || fail "byte $cut flipped: $(cat err)"
done
exit 0
