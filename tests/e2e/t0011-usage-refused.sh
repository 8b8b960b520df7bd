#!/bin/sh
# Options that cannot mean what was asked are usage errors (exit 2) naming the
# option and the valid choices, before any trace is read: metric patterns of
# diff that match no metric (a typo would turn the CI gate off), durations with
# an unknown unit, and options that exclude each other.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --steps 2 --kernels 4 -o t.gpz >/dev/null || fail "tracegen"

# diff: --fail-on and --threshold patterns must be able to match a metric.
expect_rc 2 "$GPUPROF" diff --fail-on step.wal t.gpz -- t.gpz
grep -q "unknown metric 'step.wal' (metrics: step.wall, gpu.busy," err || fail "fail-on: $(cat err)"
grep -q "kernel.FAMILY" err || fail "fail-on: the valid names are not listed: $(cat err)"
expect_rc 2 "$GPUPROF" diff --fail-on 'step.wall,gpu.bsy' t.gpz -- t.gpz
grep -q "unknown metric 'gpu.bsy'" err || fail "second pattern: $(cat err)"
expect_rc 2 "$GPUPROF" diff --threshold 'idle.host-snc=5' t.gpz -- t.gpz
grep -q "unknown metric 'idle.host-snc'" err || fail "threshold: $(cat err)"
# Patterns that do match something stay accepted.
for p in all 'kernel.*' 'kernel.gemm' 'idle.*' 'idle.host-sync' 'step.*' mfu '*.time'; do
	"$GPUPROF" diff -q --fail-on "$p" t.gpz -- t.gpz >/dev/null 2>err
	rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "--fail-on '$p' refused ($rc): $(cat err)"
done
printf 'fail-on step.wal\n' >bad.conf
expect_rc 1 "$GPUPROF" diff --config bad.conf t.gpz -- t.gpz
grep -q "bad.conf:1: unknown metric 'step.wal'" err || fail "config: $(cat err)"

# Durations name the units they accept.
expect_rc 2 "$GPUPROF" gaps --min-gap 10xs t.gpz
grep -q "bad duration '10xs' (a number of ns, or with a unit: ns, us, ms, s)" err ||
	fail "duration: $(cat err)"

# Options that exclude each other, in either order.
expect_rc 2 "$GPUPROF" flame --api --wall t.gpz
grep -q "options '--api' and '--wall' cannot be used together" err || fail "flame: $(cat err)"
expect_rc 2 "$GPUPROF" flame --wall --api t.gpz
grep -q "options '--wall' and '--api' cannot be used together" err || fail "flame: $(cat err)"
expect_rc 2 "$GPUPROF" mfu --recompute --inference --params 1e9 --tokens-per-step 10 t.gpz
grep -q "options '--recompute' and '--inference'" err || fail "mfu: $(cat err)"
expect_rc 2 "$GPUPROF" report --inference --recompute t.gpz
grep -q "options '--inference' and '--recompute'" err || fail "report: $(cat err)"
expect_rc 2 "$GPUPROF" dump --json --all-fields t.gpz
grep -q "options '--json' and '--all-fields'" err || fail "dump: $(cat err)"
# The same option twice is no conflict.
expect_rc 0 "$GPUPROF" flame --api --api -o f.folded t.gpz
echo ok
