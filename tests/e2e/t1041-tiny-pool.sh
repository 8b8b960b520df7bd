#!/bin/sh
# A deliberately tiny buffer pool: buffers run out, records are dropped and
# counted exactly (recorded + dropped = made), NVTX thread buffers overflow
# and are counted, and nothing crashes.
. "$TOP/tests/fakecuda/e2e-lib.sh"

cat >big.txt <<'SCEN'
init
context 1 0
stream 7 1
threads 4
repeat 3000
launch 0 1 7
memcpy 0 1 7 1 4096 async
end
end
SCEN
inject env GPUPROF_BUFFER_MB=0.0625 GPUPROF_FLUSH_MS=1000 GPUPROF_OUTPUT="$PWD/p.gpz" \
	"$RUN" -e p.exp big.txt >out.txt 2>err.txt || fail "exit $?: $(cat err.txt)"
[ -s err.txt ] && fail "stderr: $(cat err.txt)"
d=$(sed -n 's/^D //p' p.exp)
[ "${d:-0}" -gt 0 ] || fail "the pool never ran out"
"$CHECK" compare p.gpz p.exp || fail "records or drop counts differ"
[ -n "$(stat_val p.gpz 'loss pool')" ] || fail "no pool-exhausted loss"

inject env GPUPROF_BUFFER_MB=0.0625 GPUPROF_FLUSH_MS=2000 GPUPROF_OUTPUT="$PWD/n.gpz" \
	"$NVTXT" -t 16 -n 300 >out.txt 2>err.txt || fail "nvtx: exit $?"
"$CHECK" nvtx n.gpz >/dev/null || fail "nvtx: nesting"
[ -n "$(stat_val n.gpz 'loss nvtx')" ] || fail "no NVTX buffer loss counted"
exit 0
