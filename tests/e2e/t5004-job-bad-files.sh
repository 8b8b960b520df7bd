#!/bin/sh
# A job with a missing rank file, a corrupt one (not a trace) and one cut
# short: each unreadable file is named on standard error and in the report,
# the other ranks are analysed (the straggler still found), and the exit
# status is 1. Under mpirun the same report and status.
. "$TOP/tests/e2e/lib.sh"

mkdir t
"$TRACEGEN" --nccl --ranks 8 --steps 3 --straggler 2 --nccl-late 300000 -o 't/r%r.gpz' \
	>/dev/null || fail tracegen
head -c 4000 /dev/urandom > t/r5.gpz
rm t/r6.gpz
# cut inside the first chunk: the file header survives, no record does
head -c 100 t/r7.gpz > cut.gpz && mv cut.gpz t/r7.gpz
set -- t/r0.gpz t/r1.gpz t/r2.gpz t/r3.gpz t/r4.gpz t/r5.gpz t/r6.gpz t/r7.gpz
expect_rc 1 "$GPUPROF" report --job --format json "$@"
cp out job.json
grep -q 't/r5.gpz' err || fail "the corrupt file is not named: $(cat err)"
grep -q 't/r6.gpz' err || fail "the missing file is not named: $(cat err)"
python3 - <<'PY' || fail "known answers"
import json
j = json.load(open("job.json"))
bad = {f["file"]: f["problem"] for f in j["failed"]}
assert "t/r5.gpz" in bad and "t/r6.gpz" in bad, bad
assert bad["t/r5.gpz"].startswith("t/r5.gpz: ") and bad["t/r6.gpz"].startswith("t/r6.gpz: "), bad
assert j["traces"] == 8 and j["analysed"] + j["not_analysed"] == 8, j
assert j["straggler"]["rank"] == 2, j["straggler"]
ranks = {r["rank"] for r in j["ranks"]}
assert {0, 1, 2, 3, 4} <= ranks and 5 not in ranks and 6 not in ranks, ranks
PY
expect_rc 1 "$GPUPROF" report --job "$@"
grep -q '^Traces not analysed' out || fail "text has no 'Traces not analysed' section"
grep -q '^t/r6.gpz' out || fail "text does not name the missing file"
if command -v mpirun >/dev/null 2>&1; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export ASAN_OPTIONS
	expect_rc 1 mpirun --oversubscribe --allow-run-as-root -n 2 "$GPUPROF" report --mpi \
		--format json "$@"
	cmp -s out job.json || fail "report --mpi on damaged inputs differs from --job"
	grep -q 't/r5.gpz' err || fail "under MPI the corrupt file is not named"
fi
exit 0
