#!/bin/sh
# critical-path --mpi under mpirun with 1, 2 and 4 processes writes the same
# bytes as the one-process run on the same 8 ranks (text, JSON, CSV, and
# with a what-if), including the time each rank waited for the last one
# (wait-rank), which no rank's trace shows alone (the host waits for each
# AllReduce, --nccl-sync, so the wait is on the path). A missing and a corrupt
# rank file are named (exit 1); --window is refused with --mpi (t5009
# runs the anchors).
# Skips without mpirun (fails in CI, which installs it).
. "$TOP/tests/e2e/lib.sh"

if ! command -v mpirun >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && fail "no mpirun: in CI (CI=true) scripts/deps.sh installs openmpi-bin"
	echo "skip: no mpirun"
	exit 77
fi
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
mpi() {
	mpirun --oversubscribe --allow-run-as-root -n "$@"
}

mkdir t
"$TRACEGEN" --nccl --nccl-sync --ranks 8 --steps 4 -o 't/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" critical-path --format json t
cp out one.json
python3 - <<'PY' || fail "known answers"
import json
j = json.load(open("one.json"))
s = j["steps"]
assert len(s) == 32, len(s)
# the generator starts rank r's AllReduce 10 us after rank r - 1's: at every
# step rank r waits 10 us for each rank after it, the last rank for none
waits = [x["wait_rank_ns"] for x in s]
assert waits == [10000 * (7 - r) for r in range(8) for _ in range(4)], waits
PY
"$GPUPROF" critical-path --format json t/r0.gpz >alone.json || fail "one rank alone"
cmp -s alone.json one.json && fail "a rank alone gives the job's answer: the test shows nothing"
for what in "" "--speedup nccl=2" "--remove gemm"; do
	# shellcheck disable=SC2086
	fmts="json"
	[ -z "$what" ] && fmts="text json csv"
	for fmt in $fmts; do
		expect_rc 0 "$GPUPROF" critical-path $what --format $fmt t
		cp out ref.$fmt
		for n in 1 2 4; do
			expect_rc 0 mpi $n "$GPUPROF" critical-path --mpi $what --format $fmt t
			cmp -s out ref.$fmt ||
				fail "critical-path --mpi $what --format $fmt with $n processes differs"
		done
	done
done

# a corrupt rank and a missing one: each named, nothing written
cp -r t bad
printf 'not a trace at all' > bad/r3.gpz
for n in 1 2 4; do
	expect_rc 1 mpi $n "$GPUPROF" critical-path --mpi bad/r0.gpz bad/r1.gpz bad/r3.gpz bad/r9.gpz
	grep -q 'bad/r3.gpz: not a gpuprof trace' err || fail "the corrupt rank is not named: $(cat err)"
	grep -q 'bad/r9.gpz: cannot open' err ||
		fail "the missing rank is not named: $(cat err)"
	[ ! -s out ] || fail "output despite a bad rank"
done

expect_rc 2 "$GPUPROF" critical-path --mpi --window 0:1ms t
grep -q "'--window' and '--mpi' cannot be used together" err || fail "window: $(cat err)"

exit 0
