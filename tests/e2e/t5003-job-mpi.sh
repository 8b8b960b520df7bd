#!/bin/sh
# report --mpi and comm --mpi under mpirun with 1, 2 and 4 processes write the
# same bytes as the one-process job report (--job) on the same 64 ranks: JSON,
# Markdown and text; also when the launcher's environment names the wrong
# rank. Skips without mpirun (fails in CI, which installs it).
. "$TOP/tests/e2e/lib.sh"

if ! command -v mpirun >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && fail "no mpirun: in CI (CI=true) scripts/deps.sh installs openmpi-bin"
	echo "skip: no mpirun"
	exit 77
fi
# OpenMPI's own allocations are not ours to account for under LeakSanitizer (make check)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
mpi() {
	mpirun --oversubscribe --allow-run-as-root -n "$@"
}

mkdir t
"$TRACEGEN" --nccl --ranks 64 --steps 3 --straggler 9 --nccl-late 800000 --slow-rank 33 \
	--slowdown 1.4 -o 't/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" report --job --format json t
cp out job.json
expect_rc 0 "$GPUPROF" report --job --format markdown t
cp out job.md
expect_rc 0 "$GPUPROF" comm --job t
cp out comm.txt
python3 - <<'PY' || fail "known answers"
import json
j = json.load(open("job.json"))
assert j["straggler"]["rank"] == 9 and j["slow_gpus"]["ranks"] == [33], (j["straggler"], j["slow_gpus"])
PY
for n in 1 2 4; do
	expect_rc 0 mpi $n "$GPUPROF" report --mpi --format json t
	cmp -s out job.json || fail "report --mpi JSON with $n processes differs from --job"
	expect_rc 0 mpi $n "$GPUPROF" report --mpi --format markdown -o mpi.md t
	[ ! -s out ] || fail "report -o wrote on standard output with $n processes"
	cmp -s mpi.md job.md || fail "report --mpi Markdown with $n processes differs"
	expect_rc 0 mpi $n "$GPUPROF" comm --mpi t
	cmp -s out comm.txt || fail "comm --mpi with $n processes differs"
done
# each process analyses the share the launcher's environment names while MPI
# starts; told a wrong rank (two processes swapped), it analyses again: the
# same bytes either way
env GPUPROF_LOG=debug mpirun --oversubscribe --allow-run-as-root -n 2 "$GPUPROF" report --mpi \
	--format json t >ahead.json 2>ahead.err || fail "launcher's ranks: exit $?"
cmp -s ahead.json job.json || fail "launcher's ranks: JSON differs"
[ "$(grep -c 'ms in MPI start and its share' ahead.err)" = 2 ] || fail "no debug lines: $(cat ahead.err)"
grep -q 'analysing again' ahead.err && fail "mpirun's own ranks analysed again: $(cat ahead.err)"
export GPUPROF
mpirun --oversubscribe --allow-run-as-root -n 2 -x GPUPROF sh -c \
	'OMPI_COMM_WORLD_RANK=$((1 - OMPI_COMM_WORLD_RANK)) GPUPROF_LOG=debug exec "$GPUPROF" report --mpi --format json t' \
	>swap.json 2>swap.err || fail "swapped ranks: exit $?: $(cat swap.err)"
cmp -s swap.json job.json || fail "swapped launcher ranks: JSON differs"
[ "$(grep -c 'analysing again' swap.err)" = 2 ] || fail "swapped ranks not analysed again: $(cat swap.err)"
# more processes than traces: the extra ones send an empty share
mkdir s
cp t/r0.gpz t/r1.gpz t/r9.gpz s/
expect_rc 0 "$GPUPROF" report --job --format json s
cp out small.json
expect_rc 0 mpi 4 "$GPUPROF" report --mpi --format json s
cmp -s out small.json || fail "4 processes on 3 traces differ"
exit 0
