#!/bin/sh
# Every command in README.md's code blocks runs: usage lines name commands that
# exist and options their help lists; examples run as written, in a folder where
# generated traces stand in for the user's files (run/, base/, new/, job/) and
# build/ is the build. Generated samples are t0040's. What cannot run here says
# why: the test suite itself (this test is part of it), MPI without mpirun.
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
python3 "$TOP/tests/e2e/readme-commands.py" "$TOP/README.md" >cmds || fail "extracting commands"
[ "$(grep -c '^synopsis' cmds)" -ge 20 ] || fail "usage lines went missing: $(cat cmds)"
[ "$(grep -c '^run' cmds)" -ge 4 ] || fail "examples went missing: $(cat cmds)"

# The stand-ins for the user's files.
ln -s "$BUILD" build
mkdir run base new job
"$TRACEGEN" --seed 1 --steps 4 -o run/r0.gpz >/dev/null || fail tracegen
for i in 1 2 3; do
	"$TRACEGEN" --seed $i --steps 6 --same-kernels -o base/run$i.gpz >/dev/null || fail tracegen
	"$TRACEGEN" --seed $((i + 10)) --steps 6 --same-kernels -o new/run$i.gpz >/dev/null ||
		fail tracegen
done
"$TRACEGEN" --nccl --ranks 8 --steps 3 --straggler 5 -o 'job/r%r.gpz' >/dev/null || fail tracegen
printf 'alpha 0.05\nmin-effect 2%%\nfail-on step.wall\n' >perf-gate.conf
GITHUB_STEP_SUMMARY=$PWD/summary.md
export GITHUB_STEP_SUMMARY
PATH=$BUILD:$PATH
export PATH
ran=0

while IFS='	' read -r kind line cmd; do
	case $kind in
	sample) continue ;;
	synopsis)
		# "mpirun -n P gpuprof report --mpi ..." is report's usage too
		set -- $(echo "$cmd" | sed 's/^mpirun -n P //')
		[ "$1" = gpuprof ] || fail "README:$line: a usage line that is not gpuprof's: $cmd"
		sub=$2
		gpuprof "$sub" --help >help 2>&1 || fail "README:$line: 'gpuprof $sub --help' failed"
		for o in $(echo "$cmd" | grep -o -- '--[a-z][a-z0-9-]*'); do
			grep -qE -- "$o([^a-z0-9-]|\$)" help ||
				fail "README:$line: gpuprof $sub's help does not list $o"
		done
		continue
		;;
	esac
	case $cmd in
	"make test")
		echo "skip README:$line: '$cmd': the suite this test is part of"
		continue
		;;
	"make demo")
		# what the target runs once 'all' is built (the suite built it)
		sh "$TOP/scripts/demo.sh" "$BUILD" >out 2>&1 || fail "README:$line: $cmd: $(tail out)"
		grep -q 'data-loading' out && grep -q 'host-sync' out ||
			fail "README:$line: the demo shows no data-loading and host-sync idle: $(cat out)"
		ran=$((ran + 1))
		continue
		;;
	mpirun*)
		if ! command -v mpirun >/dev/null 2>&1; then
			[ "${CI:-}" = true ] && fail "no mpirun: in CI (CI=true) it is installed"
			echo "skip README:$line: '$cmd': no mpirun"
			continue
		fi
		# the same job report as one process (--job), byte for byte
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
			OMPI_MCA_rmaps_base_oversubscribe=1 sh -c "$cmd" >out 2>err ||
			fail "README:$line: '$cmd' failed: $(cat err)"
		sh -c "$(echo "$cmd" | sed 's/^mpirun -n [0-9]* //; s/--mpi/--job/')" >job.out 2>&1 ||
			fail "README:$line: the --job form failed"
		cmp -s out job.out || fail "README:$line: '$cmd' differs from its --job form"
		ran=$((ran + 1))
		continue
		;;
	esac
	sh -c "$cmd" >out 2>err || fail "README:$line: '$cmd' exited $?: $(head -c 600 err)"
	ran=$((ran + 1))
done <cmds

# What the examples wrote is there.
[ -s run.svg ] && grep -q '<svg' run.svg || fail "flame -o run.svg wrote no SVG"
[ -s diff.xml ] && [ -s summary.md ] || fail "diff wrote no JUnit or summary"
echo "$ran README commands ran"
[ "$ran" -ge 4 ] || fail "only $ran README commands ran"
exit 0
