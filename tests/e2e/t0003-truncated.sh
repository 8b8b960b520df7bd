#!/bin/sh
# A trace without its footer or cut at any point is read to its last whole
# chunk, with a warning and exit status 0.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 4 --kernels 50 --chunk-records 64 -o full.gpz >/dev/null || fail tracegen
"$TRACEGEN" --seed 5 --steps 4 --kernels 50 --chunk-records 64 --no-close -o open.gpz >/dev/null || fail tracegen

expect_rc 0 "$GPUPROF" info open.gpz
grep -q "not closed cleanly" out || fail "no 'not closed cleanly'"
grep -q "no footer" out || fail "no footer reason"
[ "$(wc -l <err)" -eq 1 ] || fail "expected one warning line, got: $(cat err)"
grep -q "^gpuprof: warning: open.gpz: truncated at offset" err || fail "warning text: $(cat err)"

size=$(wc -c <full.gpz)
for cut in 5000 $((size / 2)) $((size - 30)) $((size - 1)); do
	head -c "$cut" full.gpz >cut.gpz
	expect_rc 0 "$GPUPROF" info cut.gpz
	grep -q "truncated at offset" out || fail "cut at $cut: not reported truncated"
	"$GPUPROF" dump --json cut.gpz >d.jsonl 2>/dev/null || fail "dump of cut at $cut failed"
done
# Cut before the first whole chunk: nothing was read, an error (exit 1).
for cut in 40 100; do
	head -c "$cut" full.gpz >cut.gpz
	expect_rc 1 "$GPUPROF" info cut.gpz
	grep -q "truncated at offset" out || fail "cut at $cut: not reported truncated"
	grep -qx "gpuprof: error: cut.gpz: truncated at offset $cut; no records could be read" err ||
		fail "cut at $cut: $(cat err)"
	expect_rc 1 "$GPUPROF" report -o r.txt cut.gpz
	grep -q "^gpuprof: error: cut.gpz: no records could be read: chunk 0 at offset 32: truncated" err ||
		fail "report of cut at $cut: $(cat err)"
	[ ! -e r.txt ] || fail "report wrote an output for nothing read"
done
# The full file holds every record the cut ones do, and more.
"$GPUPROF" dump --json full.gpz >full.jsonl || fail dump
head -c $((size / 2)) full.gpz >half.gpz
"$GPUPROF" dump --json half.gpz >half.jsonl 2>/dev/null
[ "$(wc -l <half.jsonl)" -gt 0 ] || fail "half file gave no records"
[ "$(wc -l <half.jsonl)" -lt "$(wc -l <full.jsonl)" ] || fail "half file gave all records"

# Cut inside the file header: a clear error, exit 1.
head -c 20 full.gpz >hdr.gpz
expect_rc 1 "$GPUPROF" info hdr.gpz
grep -q "^gpuprof: error: hdr.gpz: truncated" err || fail "header cut message: $(cat err)"

# Losses of a file cut short are unknown (the final counts go in at close), never "none".
expect_rc 0 "$GPUPROF" info half.gpz
grep -qx "  losses      unknown (no footer: the trace was cut short)" out ||
	fail "info half.gpz: $(grep losses out)"
expect_rc 0 "$GPUPROF" info --json half.gpz
grep -q '"losses":{},"losses_known":false,' out || fail "info --json half.gpz: losses known"
expect_rc 0 "$GPUPROF" info full.gpz
grep -qx "  losses      none" out || fail "info full.gpz: $(grep losses out)"
exit 0
