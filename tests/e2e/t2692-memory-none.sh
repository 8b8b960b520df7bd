#!/bin/sh
# A trace without memory events: gpuprof memory says so in every format and
# exits 0; gpuprof report has no GPU memory section and no memory findings.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --steps 3 --kernels 5 -o run.gpz || fail "tracegen"
expect_rc 0 "$GPUPROF" memory run.gpz
grep -q '^No memory events in the trace' out || fail "no-events sentence: $(head -3 out)"
grep -q 'Memory per device' out && fail "tables without events"
expect_rc 0 "$GPUPROF" memory --format json run.gpz
grep -q '"devices_with_events":0' out || fail "json: $(head -c 300 out)"
grep -q '"devices":\[\]' out || fail "json devices: $(head -c 300 out)"
expect_rc 0 "$GPUPROF" memory --format markdown run.gpz
grep -q '^No memory events in the trace' out || fail "markdown sentence"
expect_rc 0 "$GPUPROF" report run.gpz
grep -q '^GPU memory' out && fail "report section without events"
grep -q 'Memory:' out && fail "memory findings without events"
expect_rc 0 "$GPUPROF" report --format json run.gpz
grep -q '"gpu_memory"' out && fail "report json gpu_memory without events"
grep -q '"memory_findings"' out && fail "report json memory_findings without events"
exit 0
