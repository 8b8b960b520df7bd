# lib.sh - helpers for end-to-end tests (sourced). Tests run in an empty
# temporary directory; $GPUPROF, $TRACEGEN and $TOP are set by run-tests.sh.
set -u

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_rc WANT CMD...: run CMD, check its exit status; output in out/err.
expect_rc() {
	want=$1
	shift
	"$@" >out 2>err
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "--- stdout"; head -n 40 out; echo "--- stderr"; head -n 40 err
		fail "'$*' exited $got, expected $want"
	fi
}

# golden NAME FILE: compare FILE with tests/e2e/expect/NAME.out
# With GP_UPDATE_GOLDEN=1 the expectation is rewritten instead (review the diff!).
golden() {
	if [ "${GP_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$2" "$TOP/tests/e2e/expect/$1.out"
	fi
	if ! diff -u "$TOP/tests/e2e/expect/$1.out" "$2"; then
		fail "output differs from expect/$1.out"
	fi
}

# Replace things that vary between runs: $TMPDIR paths and pids.
normalize() {
	sed -e "s#$(pwd)/##g" "$@"
}
