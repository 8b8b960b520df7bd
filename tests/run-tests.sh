#!/bin/sh
# run-tests.sh - run unit test binaries and end-to-end scripts, count results.
#
# usage: tests/run-tests.sh UNIT_BINARY...   (O= names the build folder)
# Unit binaries print "ok|FAIL <binary> <case>" per case. End-to-end tests
# are tests/e2e/tNNNN-*.sh: exit 0 passes, 77 skips, anything else fails.
# The last line is "N passed, N failed, N skipped".
# Each binary and script runs under a time limit (GPUPROF_TEST_TIMEOUT seconds,
# 900 by default): one that hangs fails with its name instead of stalling the run.
set -u
O=${O:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
skipped=0
failures=""
limit=${GPUPROF_TEST_TIMEOUT:-900}
# timed CMD...: CMD under the limit, its process group killed when it runs over
timed() {
	if command -v timeout >/dev/null 2>&1; then
		timeout -k 10 "$limit" "$@"
	else
		"$@"
	fi
}

for bin in "$@"; do
	out=$(timed "$bin" 2>&1)
	rc=$?
	case $rc in 124 | 137) out="$out
FAIL $bin timed out after $limit s" ;; esac
	printf '%s\n' "$out" | grep -v '^ok ' || true
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "FAIL $bin exited $rc"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$f" -gt 0 ] && failures="$failures $(basename "$bin")"
done

case $O in
/*) out=$O ;;
*) out=$top/$O ;;
esac
# BUILD: the build folder as an absolute path, for tests that link against its libraries.
# The libraries' log level is the tests' own business (t0007): none from the caller.
unset GPUPROF_LOG
# Text fits 120 columns when not on a terminal; a width from the caller would change it.
unset COLUMNS
export GPUPROF="$out/gpuprof" TRACEGEN="$out/tracegen" TOP="$top" BUILD="$out" O
for t in "$top"/tests/e2e/t[0-9][0-9][0-9][0-9]-*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	work=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-e2e-XXXXXX")
	out=$(cd "$work" && timed sh "$t" 2>&1)
	rc=$?
	case $rc in 124 | 137) out="$out
timed out after $limit s" ;; esac
	rm -rf "$work"
	case $rc in
	0) passed=$((passed + 1)); echo "ok $name" ;;
	77) skipped=$((skipped + 1)); echo "skip $name" ;;
	*) failed=$((failed + 1)); failures="$failures $name"
	   printf 'FAIL %s (exit %d)\n%s\n' "$name" "$rc" "$out" | head -n 60 ;;
	esac
done

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
