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
d=$(sed -n 's/^D //p' p.exp)
[ "${d:-0}" -gt 0 ] || fail "the pool never ran out"
"$CHECK" compare p.gpz p.exp || fail "records or drop counts differ"
lost=$(stat_val p.gpz 'loss pool')
[ -n "$lost" ] || fail "no pool-exhausted loss"
# Said at exit in one line, under plain injection too (no gpuprof record), with
# the count the trace holds; GPUPROF_QUIET=1 silences it; the program's output
# and status are its own either way.
[ "$(wc -l <err.txt)" -eq 1 ] || fail "stderr: $(cat err.txt)"
grep -qx "gpuprof: warning: $PWD/p.gpz: $lost records lost (buffer pool $lost); the trace counts them" \
	err.txt || fail "loss line: $(cat err.txt) (trace: $lost)"
mv out.txt out1.txt
inject env GPUPROF_QUIET=1 GPUPROF_BUFFER_MB=0.0625 GPUPROF_FLUSH_MS=1000 \
	GPUPROF_OUTPUT="$PWD/q.gpz" "$RUN" big.txt >out.txt 2>err.txt || fail "quiet: exit $?"
[ -s err.txt ] && fail "GPUPROF_QUIET=1: stderr: $(cat err.txt)"
cmp -s out.txt out1.txt || fail "GPUPROF_QUIET=1 changed the program's output"
plain "$RUN" big.txt >out.txt 2>err.txt || fail "untraced: exit $?"
cmp -s out.txt out1.txt || fail "the loss line changed the program's output"

inject env GPUPROF_BUFFER_MB=0.0625 GPUPROF_FLUSH_MS=2000 GPUPROF_OUTPUT="$PWD/n.gpz" \
	"$NVTXT" -t 16 -n 300 >out.txt 2>err.txt || fail "nvtx: exit $?"
"$CHECK" nvtx n.gpz >/dev/null || fail "nvtx: nesting"
[ -n "$(stat_val n.gpz 'loss nvtx')" ] || fail "no NVTX buffer loss counted"
exit 0
