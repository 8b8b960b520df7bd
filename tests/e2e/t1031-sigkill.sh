#!/bin/sh
# SIGKILL: the file is readable up to its last whole chunk, and what was
# recorded more than one flush period before the kill is all there.
. "$TOP/tests/fakecuda/e2e-lib.sh"

inject env GPUPROF_FLUSH_MS=100 GPUPROF_OUTPUT="$PWD/k.gpz" "$LIFE" -e k.exp kill >out.txt 2>&1
rc=$?
[ $rc = 137 ] || fail "exit status $rc, not 137"
"$CHECK" stat k.gpz >stat.txt || fail "unreadable after SIGKILL"
grep -q '^footer no$' stat.txt || fail "a footer after SIGKILL?"
grep -q '^problems 0$' stat.txt || fail "corrupt chunks"
"$CHECK" subset k.gpz k.exp || fail "records older than the flush period lost"
exit 0
