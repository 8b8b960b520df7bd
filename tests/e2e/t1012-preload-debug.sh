#!/bin/sh
# LD_PRELOAD alone is enough: the constructor only points CUDA_INJECTION64_PATH
# and NVTX_INJECTION64_PATH at the library, and the driver and NVTX do the
# rest. GPUPROF_DEBUG=1 turns on the debug log (and nothing else changes).
. "$TOP/tests/fakecuda/e2e-lib.sh"

# under AddressSanitizer its runtime must come first in the preload list
asan=$(ldd "$RUN" 2>/dev/null | awk '/libasan/ { print $3 }')
env LD_LIBRARY_PATH="$FAKE" LD_PRELOAD="${asan:+$asan:}$LIB" GPUPROF_OUTPUT="$PWD/p.gpz" \
	"$RUN" "$SCEN/host.txt" >out.txt 2>err.txt
[ $? = 7 ] || fail "exit status"
[ "$(grep -c . err.txt)" = 1 ] || fail "stderr: $(cat err.txt)"
[ "$(stat_val p.gpz 'records kernel')" = 130 ] || fail "kernels: $(stat_val p.gpz 'records kernel')"
[ "$(stat_val p.gpz 'records nvtx')" = 81 ] || fail "nvtx: $(stat_val p.gpz 'records nvtx')"

inject env GPUPROF_DEBUG=1 GPUPROF_OUTPUT="$PWD/d.gpz" "$RUN" "$SCEN/host.txt" >out2.txt 2>err2.txt
[ $? = 7 ] || fail "debug: exit status"
cmp -s out.txt out2.txt || fail "debug: stdout differs"
grep -q '^gpuprof\[[0-9]*\]: debug: session start' err2.txt || fail "no debug log: $(cat err2.txt)"
grep -q '^gpuprof\[[0-9]*\]: debug: cupti: active' err2.txt || fail "no CUPTI debug line"
grep -q 'debug: trace done' err2.txt || fail "no end-of-trace debug line"
exit 0
