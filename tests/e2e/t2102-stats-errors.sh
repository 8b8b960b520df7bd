#!/bin/sh
# gpuprof stats: exit codes and messages (usage 2, unreadable trace 1), empty
# traces (empty tables, not errors), truncated traces (a warning), and a
# failing stdout.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 3 --steps 1 --kernels 4 --copies 1 -o a.gpz >/dev/null || fail "tracegen"

expect_rc 0 "$GPUPROF" stats --help
grep -q '^usage: gpuprof stats' out || fail "help"
grep -q 'cuda_gpu_trace' out || fail "help lists no reports"

usage() { # EXPECTED-MESSAGE ARGS...
	msg=$1
	shift
	expect_rc 2 "$GPUPROF" stats "$@"
	grep -qF "$msg" err || fail "'stats $*': $(cat err)"
	grep -q '^usage: gpuprof stats' err || fail "'stats $*': no usage line"
	[ -s out ] && fail "'stats $*' wrote to stdout"
	return 0
}
usage "no trace file given"
usage "unknown report 'gpukernsum'" --report gpukernsum a.gpz
usage "unknown report 'bogus'" --report cuda_api_sum,bogus a.gpz
usage "unknown time unit 'hours'" --timeunit hours a.gpz
usage "unknown format 'xml'" --format xml a.gpz
usage "unknown kernel-name mode 'pretty'" --kernel-name pretty a.gpz
usage "unknown option '--bogus'" --bogus a.gpz
usage "option '--timeunit' needs a value" a.gpz --timeunit

# A trace that cannot be read: one line naming the file and the problem, status 1.
expect_rc 1 "$GPUPROF" stats missing.gpz
[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
grep -q "missing.gpz: cannot open" err || fail "$(cat err)"
echo "not a trace" >bad.gpz
expect_rc 1 "$GPUPROF" stats -r cuda_gpu_kern_sum a.gpz bad.gpz
grep -q "bad.gpz: not a gpuprof trace" err || fail "$(cat err)"
[ -s out ] && fail "partial output for a bad trace"

# No GPU work at all: every report is an empty table.
"$TRACEGEN" --steps 0 -o empty.gpz >/dev/null || fail "tracegen"
all=cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,cuda_api_sum,nvtx_sum
all=$all,nvtx_gpu_proj_sum,cuda_gpu_trace
expect_rc 0 "$GPUPROF" stats -r "$all" empty.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t2102-empty out
expect_rc 0 "$GPUPROF" stats -r "$all" -f json empty.gpz
python3 -c 'import json; d = json.load(open("out")); assert len(d["reports"]) == 7
assert all(r["rows"] == [] for r in d["reports"])' || fail "empty JSON"
expect_rc 0 "$GPUPROF" stats -r "$all" -f csv empty.gpz
[ "$(grep -c . out)" -eq 7 ] || fail "empty CSV is not seven header lines"

# A trace cut short: what could be read, and a warning.
"$TRACEGEN" --seed 3 --steps 1 --kernels 4 --copies 1 --no-close -o cut.gpz >/dev/null ||
	fail "tracegen"
expect_rc 0 "$GPUPROF" stats -r cuda_gpu_kern_sum cut.gpz
grep -q "cut.gpz: truncated" err || fail "no truncation warning: $(cat err)"

# Output that cannot be written is an error.
if [ -w /dev/full ]; then
	"$GPUPROF" stats -r cuda_gpu_trace a.gpz >/dev/full 2>err &&
		fail "writing to /dev/full succeeded"
	grep -q "cannot write to standard output" err || fail "no write error: $(cat err)"
fi
exit 0
