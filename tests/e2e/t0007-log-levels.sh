#!/bin/sh
# GPUPROF_LOG: the libraries' debug log on stderr. By default (and with
# GPUPROF_LOG=warn or error) nothing is added to either stream; with debug
# or trace the reader, the importers and the model say what they did, each
# line tagged with its file, and stdout stays the same.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --steps 3 --kernels 20 -o t.gpz >/dev/null || fail "tracegen"
unset GPUPROF_LOG
expect_rc 0 "$GPUPROF" report t.gpz
mv out base.out
[ -s err ] && fail "report wrote to stderr by default: $(cat err)"
for level in error warn; do
	GPUPROF_LOG=$level expect_rc 0 "$GPUPROF" report t.gpz
	cmp -s out base.out || fail "GPUPROF_LOG=$level changed stdout"
	[ -s err ] && fail "GPUPROF_LOG=$level wrote to stderr: $(cat err)"
done

GPUPROF_LOG=debug expect_rc 0 "$GPUPROF" report t.gpz
cmp -s out base.out || fail "GPUPROF_LOG=debug changed stdout"
grep -q '^gpuprof: debug: \[trace/reader\] t.gpz: trace format ' err ||
	fail "no reader debug line: $(cat err)"
grep -q '^gpuprof: debug: \[analyze/model-load\] model of 1 files: ' err ||
	fail "no model debug line: $(cat err)"
grep -q '^gpuprof: debug: \[analyze/steps\] 3 steps from ' err || fail "no steps line: $(cat err)"
grep -q '^gpuprof: trace: ' err && fail "trace lines at debug level: $(cat err)"
grep -v '^gpuprof: debug: \[[a-z]*/[a-z-]*\] ' err && fail "an untagged line at debug level"

GPUPROF_LOG=trace expect_rc 0 "$GPUPROF" report t.gpz
cmp -s out base.out || fail "GPUPROF_LOG=trace changed stdout"
grep -q '^gpuprof: trace: \[trace/reader\] t.gpz: chunk [0-9]* at offset [0-9]*: [0-9]* kernel records$' err ||
	fail "no per-chunk trace line: $(cat err)"

# A skipped chunk says why at debug level; what the user sees is unchanged.
corrupt=$TOP/tests/corpus/bad-chunk-crc.gpz
unset GPUPROF_LOG
expect_rc 1 "$GPUPROF" info "$corrupt"
mv out info.out
mv err info.err
GPUPROF_LOG=debug expect_rc 1 "$GPUPROF" info "$corrupt"
cmp -s out info.out || fail "GPUPROF_LOG=debug changed info's stdout"
grep -v '^gpuprof: debug: ' err >user.err
cmp -s user.err info.err || fail "GPUPROF_LOG=debug changed info's warnings"
grep -q '^gpuprof: debug: \[trace/reader\] .*: chunk [0-9]* at offset [0-9]* skipped (checksum mismatch): ' err ||
	fail "no skipped-chunk debug line: $(cat err)"

# An import: the format, the temporary file, the fast path's count.
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.5, "dur": 2}]}' >k.json
unset GPUPROF_LOG
expect_rc 0 "$GPUPROF" stats k.json
mv out k.out
GPUPROF_LOG=debug expect_rc 0 "$GPUPROF" stats k.json
cmp -s out k.out || fail "GPUPROF_LOG=debug changed stats' stdout"
grep -q '^gpuprof: debug: \[import/import\] k.json: format kineto$' err || fail "no format: $(cat err)"
grep -q '^gpuprof: debug: \[import/open\] k.json: a Kineto trace, taken straight from its importer$' err ||
	fail "not taken from the importer: $(cat err)"
grep -q '^gpuprof: debug: \[import/kineto\] k.json: the fast path read 1 events ' err ||
	fail "no fast path count: $(cat err)"

# No temporary file is written: a TMPDIR that cannot hold one changes nothing.
: >not-a-dir
TMPDIR=$PWD/not-a-dir expect_rc 0 "$GPUPROF" stats k.json
cmp -s out k.out || fail "stats of a Kineto file needed TMPDIR: $(cat err)"
[ ! -s err ] || fail "stats of a Kineto file without TMPDIR said: $(cat err)"

# Anything else is said once and ignored.
GPUPROF_LOG=loud expect_rc 0 "$GPUPROF" report t.gpz
cmp -s out base.out || fail "a bad GPUPROF_LOG changed stdout"
[ "$(cat err)" = "gpuprof: warning: GPUPROF_LOG=loud is not one of error, warn, info, debug, trace; using warn" ] ||
	fail "bad level: $(cat err)"
exit 0
