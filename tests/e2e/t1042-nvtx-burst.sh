#!/bin/sh
# A burst of NVTX ranges that fits in the buffer budget loses nothing,
# however late the writer runs: a thread's buffer grows by blocks from the
# shared NVTX part of the pool. 1 MiB of pool gives 256 KiB of NVTX blocks;
# 4 threads x 1200 pushA+pop pairs of a 5-byte message take 40 bytes each,
# about 190 KiB. The writer flushes every 10 s only, and is never needed
# for room. Then the same on a pool too small for the burst: the losses
# are counted and every range is either in the trace or counted lost.
. "$TOP/tests/fakecuda/e2e-lib.sh"

cat >burst.txt <<'SCEN'
threads 4
repeat 1200
push burst
pop
end
end
print done
SCEN
env NVTX_INJECTION64_PATH="$LIB" GPUPROF_BUFFER_MB=1 GPUPROF_FLUSH_MS=10000 \
	GPUPROF_OUTPUT="$PWD/b.gpz" "$RUN" burst.txt >out.txt 2>err.txt || fail "exit $?"
[ "$(cat out.txt)" = done ] || fail "stdout: $(cat out.txt)"
[ -s err.txt ] && fail "stderr: $(cat err.txt)"
"$CHECK" nvtx b.gpz >/dev/null || fail "nesting"
[ "$(stat_val b.gpz 'nvtx burst')" = 4800 ] || fail "ranges: $(stat_val b.gpz 'nvtx burst') of 4800"
[ -z "$(stat_val b.gpz 'loss nvtx')" ] || fail "lost: $(stat_val b.gpz 'loss nvtx')"
[ "$(stat_val b.gpz 'footer')" = yes ] || fail "no footer"

# 16 KiB of NVTX blocks: the burst cannot fit while the writer sleeps
env NVTX_INJECTION64_PATH="$LIB" GPUPROF_BUFFER_MB=0.0625 GPUPROF_FLUSH_MS=10000 \
	GPUPROF_OUTPUT="$PWD/s.gpz" "$RUN" burst.txt >out.txt 2>err.txt || fail "small: exit $?"
[ "$(cat out.txt)" = done ] || fail "small: stdout: $(cat out.txt)"
"$CHECK" nvtx s.gpz >/dev/null || fail "small: nesting"
kept=$(stat_val s.gpz 'nvtx burst')
lost=$(stat_val s.gpz 'loss nvtx')
[ "${kept:-0}" -le 4800 ] || fail "small: $kept ranges of 4800"
# a lost push or pop is one event each; a range with one half lost is not written
[ "${kept:-0}" -eq 4800 ] || [ "${lost:-0}" -gt 0 ] || fail "small: $kept ranges, none counted lost"
exit 0
