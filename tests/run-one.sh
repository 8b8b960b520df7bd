#!/bin/sh
# run-one.sh - run one unit test binary or one end-to-end script, keep its result.
#
# usage: tests/run-one.sh unit|e2e PATH RESULT   (O= names the build folder)
#
# make runs this once per test (tests/tests.mk), several at a time under -j.
# Unit binaries print "ok|FAIL <binary> <case>" per case; an end-to-end script
# (tests/e2e/tNNNN-*.sh) passes with exit 0, skips with 77, fails otherwise.
# RESULT gets "PASSED FAILED SKIPPED SECONDS CPU" and RESULT's .out the test's output
# (for a unit binary, its lines other than "ok"); tests/summary.sh adds them up.
# SECONDS is wall time; CPU the user + system seconds of everything the test ran and
# waited for, the figure that holds when other work shares the machine.
# A unit binary runs from the checkout, an e2e script in an empty temporary folder.
# One line goes to stdout: "ok|skip|FAIL NAME (S s)".
#
# Each runs under a time limit (GPUPROF_TEST_TIMEOUT seconds, 900 by default):
# one that hangs fails with its name instead of stalling the run.
set -u
kind=$1
path=$2
res=$3
O=${O:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
limit=${GPUPROF_TEST_TIMEOUT:-900}
name=$(basename "$path" .sh)
rm -f "$res" "$res.out"
mkdir -p "$(dirname "$res")"

# timed CMD...: CMD under the limit, its process group killed when it runs over
timed() {
	if command -v timeout >/dev/null 2>&1; then
		timeout -k 10 "$limit" "$@"
	else
		"$@"
	fi
}
now_ms() {
	t=$(date +%s%N)
	echo $((t / 1000000))
}
# centis TIME: "1m2.345s", as the shell's times prints it, in hundredths of a second
centis() {
	m=${1%%m*}
	r=${1#*m}
	r=${r%s}
	f=${r#*.}00
	f=${f%"${f#??}"}
	echo $((m * 6000 + ${r%%.*} * 100 + 1$f - 100))
}
# cpu_secs: cpu="S.S", the user + system time of the children this script waited for
# (set, not printed: in a $(...) subshell times would count none of them)
cpu_secs() {
	times >"$res.times"
	{
		read -r _ _
		read -r u sy
	} <"$res.times"
	rm -f "$res.times"
	c=$(($(centis "$u") + $(centis "$sy")))
	cpu=$((c / 100)).$((c % 100 / 10))
}

case $O in
/*) build=$O ;;
*) build=$top/$O ;;
esac
# BUILD: the build folder as an absolute path, for tests that link against its libraries.
# The libraries' log level is the tests' own business (t0007): none from the caller.
unset GPUPROF_LOG
# Text fits 120 columns when not on a terminal; a width from the caller would change it.
unset COLUMNS
# python3 as make test-build found it, without a version manager's shim in between.
if [ -x "$build/tests/bin/python3" ]; then PATH=$build/tests/bin:$PATH; fi
export GPUPROF="$build/gpuprof" TRACEGEN="$build/tracegen" TOP="$top" BUILD="$build" O

start=$(now_ms)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-test-XXXXXX")
case $kind in
unit) out=$(cd "$top" && TMPDIR=$work timed "$build/tests/$name" 2>&1) ;;
e2e) out=$(cd "$work" && timed sh "$top/tests/e2e/$name.sh" 2>&1) ;;
*) echo "run-one.sh: unknown kind '$kind'" >&2; exit 2 ;;
esac
rc=$?
rm -rf "$work"
ms=$(($(now_ms) - start))
secs=$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))
case $rc in 124 | 137) out="$out
FAIL $name timed out after $limit s" ;; esac

p=0 f=0 s=0
if [ "$kind" = unit ]; then
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		out="$out
FAIL $name exited $rc"
	fi
	printf '%s\n' "$out" | grep -v '^ok ' >"$res.out"
else
	case $rc in
	0) p=1 ;;
	77) s=1 ;;
	*) f=1 ;;
	esac
	printf 'exit %d\n%s\n' "$rc" "$out" >"$res.out"
fi
if [ "$f" -gt 0 ]; then
	word=FAIL
elif [ "$s" -gt 0 ]; then
	word=skip
else
	word=ok
fi
cpu_secs
echo "$p $f $s $secs $cpu" >"$res"
echo "$word $name ($secs s)"
