#!/bin/sh
# Reading on worker threads (--threads, GPUPROF_THREADS) changes nothing but
# the time: report, stats, flame and dump give the same bytes on standard
# output and standard error, and the same exit status, on one thread and on
# several, for whole, truncated, corrupt, packed and footerless traces and
# for the anchors; diff too; bad thread counts are refused.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 30 --kernels 300 --devices 2 --all-kinds --chunk-records 256 \
	-o whole.gpz >/dev/null || fail tracegen
"$TRACEGEN" --seed 6 --steps 8 --kernels 100 --no-close --chunk-records 128 \
	-o open.gpz >/dev/null || fail tracegen
"$TRACEGEN" --seed 7 --steps 4 --kernels 60 --compact 0 -o packed.gpz >/dev/null || fail tracegen
size=$(wc -c <whole.gpz)
head -c $((size * 3 / 5)) whole.gpz >cut.gpz
head -c $(($(wc -c <packed.gpz) - 7)) packed.gpz >packed-cut.gpz
# Damage: payload bytes of three chunks (bad CRC, bad deflate stream) and the
# magic of a chunk header (the reader then scans for the next one).
offs=$("$GPUPROF" dump --threads 1 whole.gpz |
	sed -n 's/^# chunk [0-9]*: [0-9]* [a-z_]* records at offset \([0-9]*\)$/\1/p' | sed -n '3p;9p;17p;30p')
[ "$(echo $offs | wc -w)" -eq 4 ] || fail "too few chunks: $offs"
python3 - $offs <<'PY'
import sys
o = [int(x) for x in sys.argv[1:]]
d = bytearray(open("whole.gpz", "rb").read())
d[o[0] + 60] ^= 0x5a
d[o[1] + 49] ^= 0xff
d[o[2]] ^= 0x01
d[o[3] + 80] ^= 0x10
open("bad.gpz", "wb").write(d)
PY

inputs="whole.gpz open.gpz packed.gpz cut.gpz packed-cut.gpz bad.gpz"
if have_anchors kineto/hta nsys; then
	inputs="$inputs $(find "$ANCHORS/kineto/hta" "$ANCHORS/nsys" \( -name '*.json' -o \
		-name '*.json.gz' -o -name '*.sqlite' \) 2>/dev/null | sort | sed -n '1p;4p;$p')"
fi

# run NAME ARGS...: stdout, stderr and status into NAME.out, NAME.err, NAME.rc
run() {
	name_=$1
	shift
	"$@" >"$name_.out" 2>"$name_.err"
	echo $? >"$name_.rc"
}

same() {
	for x_ in out err rc; do
		cmp -s "$1.$x_" "$2.$x_" || fail "$3: $1.$x_ and $2.$x_ differ: $(diff "$1.$x_" "$2.$x_" | head -5)"
	done
}

n=0
for f in $inputs; do
	for cmd in report stats "flame" "flame -o -.svg" "flame --by-step" dump; do
		run one "$GPUPROF" $cmd --threads 1 "$f"
		run four "$GPUPROF" $cmd --threads 4 "$f"
		same one four "$cmd $f"
		run two "$GPUPROF" $cmd --threads=2 "$f"
		same one two "$cmd --threads=2 $f"
		GPUPROF_THREADS=3 run env "$GPUPROF" $cmd "$f"
		same one env "GPUPROF_THREADS=3 $cmd $f"
		n=$((n + 1))
	done
done
# diff reduces its runs on worker threads: the same bytes on 1, 2 and 4
# threads, also when a run in the middle cannot be read (the first failure
# in run order is the one said, after the warnings of the runs before it,
# in run order) or has no step left to compare
for i in 1 2 3 4 5; do
	"$TRACEGEN" --seed $i --steps 6 --kernels 32 --same-kernels --step-jitter 0.02 \
		--run-jitter 0.005 -o d$i.gpz >/dev/null || fail tracegen
	"$TRACEGEN" --seed $((i + 50)) --steps 6 --kernels 32 --same-kernels --step-jitter 0.02 \
		--run-jitter 0.005 --slow-kernel 'flash_bwd=1.3' -o e$i.gpz >/dev/null || fail tracegen
done
head -c 100 e3.gpz >e3cut.gpz
# user rules are shared by the workers (each matches into its own data)
printf 'rule /^flash::flash_(fwd|bwd)_.*/ flash\nrule /gemm/ gemm\n' >r.rules
for args in "d1.gpz d2.gpz d3.gpz d4.gpz d5.gpz -- e1.gpz e2.gpz e3.gpz e4.gpz e5.gpz" \
	"-q --rules r.rules --json - d1.gpz d2.gpz d3.gpz d4.gpz d5.gpz -- e1.gpz e2.gpz e3.gpz e4.gpz e5.gpz" \
	"-q --json - d1.gpz d2.gpz d3.gpz -- e1.gpz e2.gpz e3.gpz" \
	"d1.gpz d2.gpz -- e1.gpz e2.gpz e3cut.gpz e4.gpz whole.gpz" \
	"d1.gpz cut.gpz -- bad.gpz e2.gpz packed-cut.gpz e3cut.gpz e4.gpz e3cut.gpz bad.gpz" \
	"--skip-steps 1000 d1.gpz d2.gpz -- e1.gpz e2.gpz"; do
	run one "$GPUPROF" diff --threads 1 $args
	for t in 2 4; do
		run many "$GPUPROF" diff --threads $t $args
		same one many "diff --threads $t $args"
		n=$((n + 1))
	done
done
echo "$n comparisons" >&2
# The damaged files are damaged (the comparisons above saw their warnings).
for f in cut.gpz bad.gpz packed-cut.gpz; do
	run x "$GPUPROF" report --threads 1 "$f"
	grep -q "^gpuprof: warning: $f: \(truncated\|corrupt\)" x.err || fail "$f: no warning: $(cat x.err)"
done
run x "$GPUPROF" report --threads 1 bad.gpz
[ "$(grep -c 'corrupt at offset' x.err)" -eq 1 ] || fail "bad.gpz: $(cat x.err)"

# The workers do run: the reader says so at debug level.
GPUPROF_LOG=debug "$GPUPROF" stats --threads 4 whole.gpz >/dev/null 2>err
grep -q 'decoded ahead on 4 worker threads' err || fail "no workers: $(grep -c . err) lines"
GPUPROF_LOG=debug "$GPUPROF" stats --threads 1 whole.gpz >/dev/null 2>err
grep -q 'worker threads' err && fail "workers with --threads 1"
# By default one thread per core the process may run on: held to one core
# (taskset, a cpuset, an MPI launcher's binding), it reads on one thread.
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	GPUPROF_LOG=debug taskset -c 0 "$GPUPROF" stats whole.gpz >/dev/null 2>err
	grep -q 'worker threads' err && fail "workers on one allowed core: $(grep thread err)"
	if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && taskset -c 0,1 true 2>/dev/null; then
		GPUPROF_LOG=debug taskset -c 0,1 "$GPUPROF" stats whole.gpz >/dev/null 2>err
		grep -q 'decoded ahead on 2 worker threads' err ||
			fail "two allowed cores: $(grep -c . err) lines"
	fi
fi

# Bad counts are refused.
for v in 0 x 257 -1 ""; do
	expect_rc 2 "$GPUPROF" report --threads "$v" whole.gpz
	grep -q "^gpuprof: error: --threads needs a number of threads from 1 to 256" err ||
		fail "--threads '$v': $(cat err)"
done
expect_rc 2 "$GPUPROF" stats whole.gpz --threads
GPUPROF_THREADS=many expect_rc 1 "$GPUPROF" report whole.gpz
grep -qx "gpuprof: error: GPUPROF_THREADS: 'many' is not a number of threads from 1 to 256" err ||
	fail "GPUPROF_THREADS=many: $(cat err)"
GPUPROF_THREADS=many expect_rc 0 "$GPUPROF" report --threads 2 whole.gpz
exit 0
