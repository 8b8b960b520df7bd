# lib.sh - helpers for end-to-end tests (sourced). Tests run in an empty
# temporary directory; $GPUPROF, $TRACEGEN and $TOP are set by tests/run-one.sh.
set -u

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The real traces beside the checkout (../shared/anchors; GPUPROF_ANCHORS names
# another place). Without them the tests that read them skip, except in CI
# (CI=true), which has them: there a missing anchor fails the test.
ANCHORS=${GPUPROF_ANCHORS:-$TOP/../shared/anchors}

# no_anchors WHAT: skip the test for want of WHAT (under $ANCHORS), or fail in CI.
no_anchors() {
	if [ "${CI:-}" = true ]; then
		fail "no $ANCHORS/$1: in CI (CI=true) ../shared/anchors must be beside the checkout"
	fi
	echo "skip: no $ANCHORS/$1"
	exit 77
}

# have_anchors PATH...: whether every PATH (a glob) under $ANCHORS exists, for a
# test's optional part; in CI a missing one fails the test.
have_anchors() {
	for anchor_ in "$@"; do
		for match_ in "$ANCHORS"/$anchor_; do
			[ -e "$match_" ] && continue 2
		done
		[ "${CI:-}" = true ] && no_anchors "$anchor_"
		return 1
	done
	return 0
}

# need_anchors PATH...: skip the test (fail in CI) unless every PATH exists.
need_anchors() {
	for anchor_ in "$@"; do
		have_anchors "$anchor_" || no_anchors "$anchor_"
	done
}

# anchor_swept FILE: whether a test that sweeps every anchor reads FILE: always, but
# where tests/tests.mk sets GPUPROF_ANCHOR_SWEEP=small (the sanitized half of CI) only
# when FILE is under 1 MB, the same test reading every anchor in the plain half
# (docs/dev/testing.md, "What CI runs where"). A test that calls it runs in both.
anchor_swept() {
	[ "${GPUPROF_ANCHOR_SWEEP:-all}" != small ] || [ "$(wc -c <"$1")" -lt 1000000 ]
}

# anchor_sweep: the paths on stdin, one a line, that anchor_swept keeps
anchor_sweep() {
	while read -r sweep_; do
		if anchor_swept "$sweep_"; then echo "$sweep_"; fi
	done
}

# sweep_widths N: the terminal widths a test that checks text at several widths renders
# its Nth input at: every one of 80, 100 and 120, but where tests/tests.mk sets
# GPUPROF_ANCHOR_SWEEP=small (the sanitized half of CI) one of them, in turn by N, so the
# sanitizers still see every width across the inputs and each input's commands run once,
# the same test checking every input at every width in the plain half.
sweep_widths() {
	if [ "${GPUPROF_ANCHOR_SWEEP:-all}" = small ]; then
		set -- "$1" 80 100 120
		shift $(($1 % 3 + 1))
		echo "$1"
	else
		echo 80 100 120
	fi
}

# sweep_sampled N: whether a test that runs one check over many items (every option of
# every command, say) runs it on the Nth: on every one, but where tests/tests.mk sets
# GPUPROF_ANCHOR_SWEEP=small (the sanitized half of CI) on one in three, the same test
# running it on every item in the plain half. A test that calls it runs in both.
sweep_sampled() {
	[ "${GPUPROF_ANCHOR_SWEEP:-all}" != small ] || [ $(($1 % 3)) -eq 0 ]
}

# browser_checks: whether to run the checks that load our output into a browser
# (Chromium): not where tests/tests.mk sets GPUPROF_BROWSER=0 (the sanitized half of CI,
# whose sanitizers watch our C, not the browser's), the same test running them in the plain
# half (docs/dev/testing.md). A test that calls it runs in both.
browser_checks() {
	[ "${GPUPROF_BROWSER:-1}" != 0 ] || {
		echo "browser checks skipped here (GPUPROF_BROWSER=0): CI runs them in its plain half"
		return 1
	}
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
