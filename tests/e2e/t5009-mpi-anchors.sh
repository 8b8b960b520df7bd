#!/bin/sh
# critical-path --mpi and diff --mpi on real traces nobody here generated:
# every anchor alone gives the one-process output byte for byte, except a
# trace holding several processes, which --mpi refuses by name (it takes one
# process per trace); the ranks of HTA's trace_filter job and TraceLens's
# vLLM pair give the same bytes with 2 processes; two traces that find their
# steps in different ways are refused, not guessed; diff --mpi of HTA's
# trace_diff and trace_compare pairs equals the one-process diff.
. "$TOP/tests/e2e/lib.sh"

if ! command -v mpirun >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && fail "no mpirun: in CI (CI=true) scripts/deps.sh installs openmpi-bin"
	echo "skip: no mpirun"
	exit 77
fi
need_anchors kineto/hta nsys kineto/tracelens/vllm_decode_full kineto/tracelens/sglang_decode
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
mpi() {
	mpirun --oversubscribe --allow-run-as-root -n "$@"
}

n=0
refused=0
for f in $(find "$ANCHORS" \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite' \) | sort); do
	n=$((n + 1))
	"$GPUPROF" critical-path --format json "$f" >one.json 2>/dev/null
	rc=$?
	mpi 1 "$GPUPROF" critical-path --mpi --format json "$f" >out 2>err
	mrc=$?
	if grep -q 'processes in one trace: critical-path --mpi takes one process per trace' err; then
		[ "$mrc" = 1 ] && [ ! -s out ] || fail "$f: refused but exit $mrc"
		refused=$((refused + 1))
		continue
	fi
	[ "$mrc" = "$rc" ] || fail "$f: exit $mrc with --mpi, $rc without: $(head -n 3 err)"
	# the same, but for the implausible-data object, which --mpi leaves to stderr
	python3 -c '
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:])
a.pop("sanity", None)
sys.exit(a != b)' one.json out || fail "$f: critical-path --mpi differs"
done
[ "$n" -ge 20 ] || fail "only $n anchors"
[ "$refused" -le 4 ] || fail "$refused of $n anchors refused"

for d in kineto/hta/trace_filter kineto/tracelens/vllm_decode_full; do
	expect_rc 0 "$GPUPROF" critical-path --format json "$ANCHORS/$d"
	cp out one.json
	expect_rc 0 mpi 2 "$GPUPROF" critical-path --mpi --format json "$ANCHORS/$d"
	cmp -s out one.json || fail "$d: critical-path --mpi with 2 processes differs"
done
expect_rc 1 mpi 2 "$GPUPROF" critical-path --mpi "$ANCHORS/kineto/tracelens/sglang_decode"
grep -q 'finds its steps otherwise than' err || fail "mixed steps not refused: $(cat err)"

H=$ANCHORS/kineto/hta
for pair in "trace_diff/control trace_diff/test" "trace_compare/base trace_compare/test"; do
	set -- $pair
	"$GPUPROF" diff --json one.json "$H/$1" -- "$H/$2" >one.txt 2>/dev/null
	rc=$?
	expect_rc $rc mpi 2 "$GPUPROF" diff --mpi --json mpi.json "$H/$1" -- "$H/$2"
	cmp -s out one.txt || fail "diff --mpi $pair differs (text)"
	[ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] || cmp -s mpi.json one.json ||
		fail "diff --mpi $pair differs (JSON)"
done
exit 0
