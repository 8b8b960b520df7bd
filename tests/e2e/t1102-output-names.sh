#!/bin/sh
# The recording library's output name is a device, a FIFO or a directory:
# not traced, said once, the program's status its own, and no file made
# beside it (as root, GPUPROF_OUTPUT=/dev/null once made /dev/null.PID).
# record -o FILE/sub says FILE is not a directory.
. "$TOP/tests/fakecuda/e2e-lib.sh"

before=$(ls -d /dev/null.* 2>/dev/null)
mkdir w
mkfifo w/ff
mkdir w/d
for out in /dev/null "$PWD/w/ff" "$PWD/w/d"; do
	inject env GPUPROF_OUTPUT="$out" timeout 60 "$RUN" "$SCEN/full.txt" >out.txt 2>err.txt ||
		fail "$out: exit $?: $(cat err.txt)"
	[ "$(cat err.txt)" = "gpuprof: warning: cannot create trace file $out: not a regular file (a device, FIFO or directory); not tracing" ] ||
		fail "$out: stderr: $(cat err.txt)"
	plain "$RUN" "$SCEN/full.txt" >plain.txt 2>/dev/null
	cmp -s out.txt plain.txt || fail "$out: the program's output changed"
done
[ "$(ls -d /dev/null.* 2>/dev/null)" = "$before" ] || fail "made $(ls -d /dev/null.*)"
[ "$(ls w)" = "$(printf 'd\nff')" ] || fail "made: $(ls w)"
[ -z "$(ls w/d)" ] || fail "made in w/d: $(ls w/d)"

# record -o below a file: the message names what is wrong with it.
: >FILE
"$TOP/$O/gpuprof" record -o FILE/sub -- true >out.txt 2>err.txt && fail "record -o FILE/sub exited 0"
grep -qx "gpuprof: error: cannot create directory $PWD/FILE/sub: $PWD/FILE is not a directory" err.txt ||
	fail "record -o FILE/sub: $(cat err.txt)"
"$TOP/$O/gpuprof" record -o nodir/sub -- true >out.txt 2>err.txt && fail "record -o nodir/sub exited 0"
grep -qx "gpuprof: error: cannot create directory $PWD/nodir/sub: $PWD/nodir does not exist" err.txt ||
	fail "record -o nodir/sub: $(cat err.txt)"
exit 0
