#!/bin/sh
# Kernel rules: --comm-kernel makes a compute kernel communication (its
# time moves from compute to comm); a bad pattern is a usage error naming
# it; the NCCL name rule does not apply to unlinked kernels of a process
# whose kernels link to NCCL records; bad input is one line and exit 1.
. "$TOP/tests/e2e/lib.sh"

mkdir g
"$TRACEGEN" --nccl --ranks 2 --steps 2 -o 'g/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" comm --format json --comm-kernel 'xmma_gemm' g
python3 - <<'PY' || fail "--comm-kernel"
import json
d = json.load(open("out"))
assert d["summary"]["by_name"] == 8 and d["summary"]["by_record"] == 4, d["summary"]
t = [x for x in d["exposed"] if x["step"] == "all"]
assert all(x["compute_ns"] == 0 and x["overlapped_ns"] == 0 for x in t), t
PY
expect_rc 2 "$GPUPROF" comm --comm-kernel '(' g
grep -q "bad kernel rule '('" err || fail "bad rule message: $(cat err)"
expect_rc 2 "$GPUPROF" comm --table nosuch g
expect_rc 2 "$GPUPROF" comm
expect_rc 1 "$GPUPROF" comm nosuch.gpz
[ "$(wc -l <err)" = 1 ] || fail "not one line: $(cat err)"
printf 'not a trace' >junk.gpz
expect_rc 1 "$GPUPROF" comm junk.gpz
[ "$(wc -l <err)" = 1 ] || fail "not one line: $(cat err)"
grep -q 'junk.gpz' err || fail "message does not name the file: $(cat err)"
exit 0
