#!/bin/sh
# GPUPROF_KINDS selects what is recorded; the rest is never enabled.
. "$TOP/tests/fakecuda/e2e-lib.sh"

inject env GPUPROF_KINDS=kernel,nvtx GPUPROF_OUTPUT="$PWD/k.gpz" "$RUN" "$SCEN/host.txt" \
	>/dev/null 2>&1
"$CHECK" stat k.gpz >stat.txt || fail "unreadable trace"
grep -q '^records kernel 130$' stat.txt || fail "kernels: $(grep kernel stat.txt)"
grep -q '^records nvtx 81$' stat.txt || fail "nvtx: $(grep nvtx stat.txt)"
grep -q '^records api ' stat.txt && fail "API records recorded"
grep -q '^records memcpy ' stat.txt && fail "copies recorded"

inject env GPUPROF_KINDS=all,-nvtx,-driver GPUPROF_OUTPUT="$PWD/k2.gpz" "$RUN" "$SCEN/host.txt" \
	>/dev/null 2>&1
"$CHECK" stat k2.gpz >stat2.txt || fail "unreadable trace"
grep -q '^records nvtx ' stat2.txt && fail "NVTX recorded with -nvtx"
grep -q '^records api 180$' stat2.txt || fail "api: $(grep api stat2.txt)"

# NVTX not wanted in a program that only uses NVTX: the library declines
# (NVTX unloads it) and nothing is written or started
printf 'push a\npop\nprint done\n' >nvtx-only.txt
env NVTX_INJECTION64_PATH="$LIB" GPUPROF_KINDS=all,-nvtx GPUPROF_OUTPUT="$PWD/none.gpz" \
	"$RUN" nvtx-only.txt >out.txt 2>err.txt || fail "declined NVTX: exit $?"
[ "$(cat out.txt)" = done ] || fail "declined NVTX: output"
[ -s err.txt ] && fail "declined NVTX: stderr: $(cat err.txt)"
[ -e none.gpz ] && fail "declined NVTX: a trace was written"
exit 0
