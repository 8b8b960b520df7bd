#!/bin/sh
# The simulated training loop `make demo` records: a readable trace with
# its steps, phases, kernels, copies and host synchronizations.
. "$TOP/tests/fakecuda/e2e-lib.sh"

inject env GPUPROF_OUTPUT="$PWD/d.gpz" "$B/tests/demo-train" 5 >out.txt 2>err.txt || fail "exit $?"
grep -q 'simulated GPU' out.txt || fail "output: $(cat out.txt)"
"$CHECK" stat d.gpz >stat.txt || fail "unreadable"
grep -q '^nvtx ProfilerStep#4 1$' stat.txt || fail "steps"
grep -q '^nvtx data_loader 5$' stat.txt || fail "data loader ranges"
grep -q '^records kernel 260$' stat.txt || fail "kernels: $(grep 'records kernel' stat.txt)"
grep -q '^records memcpy 10$' stat.txt || fail "copies"
grep -q '^records sync 6$' stat.txt || fail "syncs: $(grep 'records sync' stat.txt)"
"$CHECK" nvtx d.gpz >/dev/null || fail "nesting"
exit 0
