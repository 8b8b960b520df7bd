#!/bin/sh
# diff --mpi under mpirun with 1, 2 and 4 processes writes the same bytes as
# the one-process diff on the same runs (text, JSON, Markdown, exit status):
# single-trace runs with a run given twice (its warning), and runs that are
# directories of rank traces with different step counts (per-run medians).
# A missing and a corrupt run are named, with exit 1. Skips without mpirun
# (fails in CI, which installs it).
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

gen() { # OUT SEED [extra tracegen options]
	out=$1
	seed=$2
	shift 2
	"$TRACEGEN" --seed "$seed" --steps 6 --kernels 32 --copies 2 --nvtx-depth 1 --same-kernels \
		--step-jitter 0.02 --run-jitter 0.005 "$@" -o "$out" >/dev/null || fail "tracegen $out"
}
for i in 1 2 3 4; do
	gen a$i.gpz $i
	gen b$i.gpz $((i + 100)) --slow-kernel 'flash_bwd=1.5'
done
cp a2.gpz a2-again.gpz
set -- a1.gpz a2.gpz a3.gpz a4.gpz a2-again.gpz -- b1.gpz b2.gpz b3.gpz b4.gpz
expect_rc 3 "$GPUPROF" diff --json one.json --markdown one.md "$@"
cp out one.txt
grep -q 'a2-again.gpz is the same run as a2.gpz' one.txt || fail "no warning of the run given twice"
python3 - <<'PY' || fail "known answers"
import json
d = json.load(open("one.json"))
m = {x["name"]: x for x in d["metrics"]}
assert d["runs"] == {"baseline": 5, "candidate": 4}, d["runs"]
assert m["step.wall"]["verdict"] == "regressed", m["step.wall"]
# the explanation travels with the samples: path metrics and causes
e = d["explain"]
assert e["direction"] == "slower" and e["causes"][0]["metric"] == "path.kernel", e
PY
head -n 1 one.txt | grep -q '^SLOWER per step' || fail "first line: $(head -n 1 one.txt)"
for n in 1 2 4; do
	expect_rc 3 mpi $n "$GPUPROF" diff --mpi --json mpi.json --markdown mpi.md "$@"
	cmp -s out one.txt || fail "diff --mpi text with $n processes differs"
	cmp -s mpi.json one.json || fail "diff --mpi JSON with $n processes differs"
	cmp -s mpi.md one.md || fail "diff --mpi Markdown with $n processes differs"
done

# runs of 4 ranks each; the candidate's have another step count
for r in 1 2 3; do
	mkdir A$r B$r
	"$TRACEGEN" --seed $r --nccl --ranks 4 --steps 5 -o "A$r/r%r.gpz" >/dev/null ||
		fail tracegen
	"$TRACEGEN" --seed $((r + 10)) --nccl --ranks 4 --steps 6 --straggler 2 \
		--nccl-late 800000 -o "B$r/r%r.gpz" >/dev/null || fail tracegen
done
expect_rc 0 "$GPUPROF" diff --json dir.json A1 A2 A3 -- B1 B2 B3
cp out dir.txt
grep -q 'one per run: the median of its steps' dir.txt || fail "not per-run medians: $(cat dir.txt)"
for n in 1 2 4; do
	expect_rc 0 mpi $n "$GPUPROF" diff --mpi --json mpi.json A1 A2 A3 -- B1 B2 B3
	cmp -s out dir.txt || fail "diff --mpi of directories with $n processes differs (text)"
	cmp -s mpi.json dir.json || fail "diff --mpi of directories with $n processes differs (JSON)"
done

# a missing run and a corrupt one: each named by the process that had it
printf 'not a trace at all' > junk.gpz
for n in 1 2; do
	expect_rc 1 mpi $n "$GPUPROF" diff --mpi a1.gpz a2.gpz -- junk.gpz gone.gpz
	grep -q 'junk.gpz: not a gpuprof trace' err || fail "the corrupt run is not named: $(cat err)"
	[ ! -s out ] || fail "output despite a bad run"
done
expect_rc 1 mpi 2 "$GPUPROF" diff --mpi a1.gpz gone.gpz -- b1.gpz b2.gpz
grep -q 'gone.gpz: cannot open' err || fail "the missing run is not named: $(cat err)"
# the plugin is loaded only with --mpi: a plain diff does not need it
GPUPROF_MPI_PLUGIN=/nonexistent/gpuprof-mpi.so expect_rc 3 "$GPUPROF" diff "$@"
cmp -s out one.txt || fail "the plain run changed"
GPUPROF_MPI_PLUGIN=/nonexistent/gpuprof-mpi.so expect_rc 1 "$GPUPROF" diff --mpi "$@"
grep -q 'needs the MPI plugin' err || fail "no message without the plugin: $(cat err)"
exit 0
