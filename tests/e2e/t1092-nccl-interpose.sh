#!/bin/sh
# NCCL interposition (library preloaded, no plugin): two ranks of one
# communicator over a fake libnccl.so.2. One record per operation issued,
# the same communicator hash on both ranks (from the unique id), sequence
# numbers per communicator and function, grouped send/recv flagged, a split
# communicator gets its own hash (the same on both ranks); the program's
# output and exit status are those of an untraced run.
. "$TOP/tests/fakecuda/e2e-lib.sh"
APP=$B/tests/nccl-app
NCCLDIR=$FAKE/nccl
[ -x "$APP" ] || { echo "nccl-app not built"; exit 77; }

env LD_LIBRARY_PATH="$NCCLDIR" "$APP" 0 2 12 >plain.txt 2>&1 || fail "untraced run: $?"
# under AddressSanitizer its runtime must come first in the preload list
asan=$(ldd "$APP" 2>/dev/null | awk '/libasan/ { print $3 }')
for r in 0 1; do
	env LD_LIBRARY_PATH="$NCCLDIR" LD_PRELOAD="${asan:+$asan:}$LIB" GPUPROF_OUTPUT="$PWD/r$r.gpz" \
		"$APP" $r 2 12 >out$r.txt 2>err$r.txt || fail "rank $r: exit $?: $(cat err$r.txt)"
	[ -s err$r.txt ] && fail "rank $r: stderr: $(cat err$r.txt)"
	"$GPUPROF" dump --kind nccl "r$r.gpz" | grep '^nccl ' >d$r.txt || fail "rank $r: dump"
done
cmp -s plain.txt out0.txt || fail "output differs when traced"
calls=$(sed -n 's/^calls //p' out0.txt)
[ "$(wc -l <d0.txt)" = "$calls" ] || fail "$(wc -l <d0.txt) records, $calls calls"
[ "$(wc -l <d1.txt)" = "$calls" ] || fail "rank 1: $(wc -l <d1.txt) records"
grep -v 'source=2 ' d0.txt && fail "source is not 2 (interposition)"
h0=$(sed -n '1s/.* comm_hash=\([0-9]*\) .*/\1/p' d0.txt)
h1=$(sed -n '1s/.* comm_hash=\([0-9]*\) .*/\1/p' d1.txt)
[ -n "$h0" ] && [ "$h0" = "$h1" ] || fail "communicator hash differs: $h0 $h1"
# the 12th AllReduce of the first communicator: seq 12, 1024 << 3 floats
grep "comm_hash=$h0 " d1.txt | grep 'func="AllReduce"' | grep -q 'count=8192 datatype=7 bytes=32768 .* rank=1 nranks=2 .*seq=12 ' ||
	fail "12th AllReduce: $(grep 'func="AllReduce"' d1.txt | sed -n 12p)"
[ "$(grep -c 'func="Send".*flags=6' d0.txt)" = 12 ] || fail "grouped sends not flagged"
grep 'func="Broadcast"' d0.txt | head -n 1 | grep -q 'count=100 datatype=8 bytes=800 ' ||
	fail "broadcast fields"
s0=$(grep 'datatype=6 ' d0.txt | sed 's/.* comm_hash=\([0-9]*\) .*/\1/')
s1=$(grep 'datatype=6 ' d1.txt | sed 's/.* comm_hash=\([0-9]*\) .*/\1/')
[ -n "$s0" ] && [ "$s0" = "$s1" ] && [ "$s0" != "$h0" ] || fail "split communicator hash: $s0 $s1 ($h0)"
# every record has an external correlation id, all different
[ "$(sed -n 's/.* external_id=\([0-9]*\) .*/\1/p' d0.txt | sort -u | wc -l)" = "$calls" ] ||
	fail "external ids"
exit 0
