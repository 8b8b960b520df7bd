#!/bin/sh
# gpuprof occupancy options and bad input: filters, errors with exit codes.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 2 --kernels 8 --devices 2 -o a.gpz >/dev/null || fail "tracegen"

expect_rc 0 "$GPUPROF" occupancy --format json --kernel 'gemm' --device 1 --top all a.gpz
python3 - <<'PY' || fail "filters not applied"
import json
d = json.load(open("out"))
assert d["kernels"], d
assert all("gemm" in g["kernel"] and g["device"] == 1 for g in d["kernels"]), d["kernels"]
PY
expect_rc 0 "$GPUPROF" occupancy --no-whatif --format json a.gpz
grep -q '"what_if":""' out || fail "--no-whatif still computed what-if"
expect_rc 0 "$GPUPROF" occupancy --kernel 'no-such-kernel' a.gpz
grep -q 'no kernel launches match' err || fail "no warning for an empty selection"

expect_rc 2 "$GPUPROF" occupancy --kernel '(' a.gpz
grep -q "bad kernel pattern '('" err || fail "bad regex message: $(cat err)"
expect_rc 2 "$GPUPROF" occupancy --top -3 a.gpz
expect_rc 2 "$GPUPROF" occupancy --device x a.gpz
expect_rc 2 "$GPUPROF" occupancy --format yaml a.gpz
expect_rc 2 "$GPUPROF" occupancy
expect_rc 1 "$GPUPROF" occupancy missing.gpz
[ "$(wc -l <err)" -eq 1 ] || fail "error is not one line: $(cat err)"
printf 'not a trace' >bad.gpz
expect_rc 1 "$GPUPROF" occupancy bad.gpz
grep -q 'bad.gpz' err || fail "error does not name the file"
exit 0
