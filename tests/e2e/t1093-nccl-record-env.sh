#!/bin/sh
# gpuprof record names the library as NCCL's profiler plugin, and leaves a
# value the user set alone.
. "$TOP/tests/fakecuda/e2e-lib.sh"
unset NCCL_PROFILER_PLUGIN
plain "$GPUPROF" record -o a.gpz -- sh -c 'echo "plugin=$NCCL_PROFILER_PLUGIN"' >out.txt 2>err.txt ||
	fail "exit $?: $(cat err.txt)"
p=$(sed -n 's/^plugin=//p' out.txt)
[ -n "$p" ] && [ "$(cd "$(dirname "$p")" && pwd)/$(basename "$p")" = "$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")" ] ||
	fail "NCCL_PROFILER_PLUGIN=$p, not $LIB"
env NCCL_PROFILER_PLUGIN=none LD_LIBRARY_PATH="$FAKE" "$GPUPROF" record -o b.gpz -- \
	sh -c 'echo "plugin=$NCCL_PROFILER_PLUGIN"' >out.txt 2>err.txt || fail "exit $?"
grep -qx 'plugin=none' out.txt || fail "user value replaced: $(cat out.txt)"
"$GPUPROF" record --help | grep -q NCCL_PROFILER_PLUGIN || fail "help does not say so"
exit 0
