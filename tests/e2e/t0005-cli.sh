#!/bin/sh
# The command: help, version, usage errors and exit codes, the man page.
. "$TOP/tests/e2e/lib.sh"

expect_rc 2 "$GPUPROF"
grep -q "^usage: gpuprof" err || fail "no usage on stderr"
expect_rc 0 "$GPUPROF" --help
grep -q "^  info " out || fail "help lists no info"
expect_rc 0 "$GPUPROF" --version
grep -q "^gpuprof [0-9]" out || fail "version: $(cat out)"
expect_rc 2 "$GPUPROF" frobnicate
grep -q "no such command: 'frobnicate'" err || fail "$(cat err)"
expect_rc 2 "$GPUPROF" info
grep -q "no trace file given" err || fail "$(cat err)"
grep -q "^usage: gpuprof info" err || fail "usage line missing"
expect_rc 2 "$GPUPROF" info --bogus x.gpz
grep -q "unknown option '--bogus'" err || fail "$(cat err)"
for c in info dump help; do
	expect_rc 0 "$GPUPROF" "$c" --help
	grep -q "^usage: gpuprof $c" out || fail "$c --help"
	expect_rc 0 "$GPUPROF" help "$c"
	grep -q "^usage: gpuprof $c" out || fail "help $c"
done
expect_rc 0 "$GPUPROF" help --man
grep -q '^\.TH GPUPROF 1' out || fail "man page header"
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww out >/dev/null 2>groff.err || fail "groff failed"
	[ -s groff.err ] && fail "groff warnings: $(cat groff.err)"
fi
# A write error on stdout is an error.
if [ -w /dev/full ]; then
	:
	"$GPUPROF" help >/dev/full 2>err && fail "writing to /dev/full succeeded"
	grep -q "cannot write to standard output" err || fail "no write error: $(cat err)"
fi
exit 0
