#!/bin/sh
# OpenMPI is loaded only for --mpi (the plugin gpuprof-mpi.so): a plain run and
# a --job run neither map libmpi nor initialise MPI (no MPI debug line, nothing
# on standard error), and run without a launcher. --mpi without a launcher
# runs as a single MPI process with the same answer; without the plugin it
# says so and fails. --mpi refuses the HTML format.
. "$TOP/tests/e2e/lib.sh"

mkdir t
"$TRACEGEN" --nccl --ranks 3 --steps 2 -o 't/r%r.gpz' >/dev/null || fail tracegen
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMIX_RANK 2>/dev/null
GPUPROF_LOG=debug expect_rc 0 "$GPUPROF" report t
grep -q 'cli/mpi' err && fail "a plain report initialised MPI: $(grep cli/mpi err)"
GPUPROF_LOG=debug expect_rc 0 "$GPUPROF" report --job --format json t
cp out job.json
grep -q 'cli/mpi' err && fail "report --job initialised MPI"
grep -q 'cli/job' err || fail "no debug line of the job report: $(head -5 err)"
expect_rc 0 "$GPUPROF" report --job t
[ -s err ] && fail "report --job wrote on standard error: $(cat err)"
# the dynamic loader's own account of the libraries it maps
LD_DEBUG=files "$GPUPROF" report --job t >/dev/null 2>ld.log || fail "report --job under LD_DEBUG"
grep -q 'file=libz' ld.log || fail "LD_DEBUG=files printed nothing useful: $(head -3 ld.log)"
grep -q 'libmpi' ld.log && fail "a run without --mpi mapped OpenMPI: $(grep -m1 libmpi ld.log)"
GPUPROF_MPI_PLUGIN=$PWD/none.so expect_rc 1 "$GPUPROF" report --mpi t
grep -q 'needs the MPI plugin gpuprof-mpi.so' err || fail "no plugin: $(cat err)"
expect_rc 0 "$GPUPROF" --version
[ -s err ] && fail "--version wrote on standard error: $(cat err)"
expect_rc 2 "$GPUPROF" report --mpi --format html t
grep -q 'text, json or markdown' err || fail "html with --mpi: $(cat err)"
if command -v mpirun >/dev/null 2>&1; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export ASAN_OPTIONS
	GPUPROF_LOG=debug expect_rc 0 "$GPUPROF" report --mpi --format json t
	cmp -s out job.json || fail "--mpi without a launcher differs from --job"
	grep -q 'cli/mpi.*process 0 of 1' err || fail "no MPI start logged: $(head -5 err)"
fi
exit 0
