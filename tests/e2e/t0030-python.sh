#!/bin/sh
# The Python module (python/, docs/python.md) under pytest: tables against the command's
# JSON on every anchor, memory after 1,000 opens, error messages.
# It is built for Debian's interpreter (PYTHON, /usr/bin/python3) by make python; without
# that interpreter, pytest, NumPy or pandas the test skips, except under CI=true.
. "$TOP/tests/e2e/lib.sh"

PY=${PYTHON:-/usr/bin/python3}
absent() {
	[ "${CI:-}" = true ] && fail "$1 (CI=true: scripts/deps.sh test installs it)"
	echo "skip: $1"
	exit 77
}
[ -x "$PY" ] || absent "no $PY"
"$PY" -c 'import pytest, numpy, pandas' 2>/dev/null ||
	absent "$PY lacks pytest, numpy or pandas (python3-pytest python3-numpy python3-pandas)"
# built before the tests start where the headers were there then; else now (python3-dev
# installed by scripts/deps.sh test in the same run)
[ -f "$BUILD/python/gpuprof/_core.abi3.so" ] ||
	make -s -C "$TOP" O="${O:-build}" PYTHON="$PY" python >make.out 2>&1 ||
	{ cat make.out; fail "make python failed"; }
# A sanitized build's module needs its runtime loaded first: not in a plain interpreter
# (CI runs this test on the plain build: tests/tests.mk, TESTS_CI_PLAIN).
if nm -D --undefined-only "$BUILD/python/gpuprof/_core.abi3.so" 2>/dev/null | grep -q __asan_; then
	echo "skip: a sanitized build's module does not load into $PY"
	exit 77
fi

PYTHONPATH=$BUILD/python GPUPROF=$GPUPROF TRACEGEN=$TRACEGEN TOP=$TOP \
	"$PY" -m pytest -q -p no:cacheprovider --rootdir=. "$TOP/tests/python" >pytest.out 2>&1 ||
	{ cat pytest.out; fail "pytest failed"; }
tail -n 1 pytest.out
grep -q ' passed' pytest.out || fail "pytest ran nothing"
