#!/bin/sh
# Progress on stderr: drawn on a terminal (a pseudo-terminal from script(1)),
# erased when the job ends; nothing when stderr is not a terminal or with
# --quiet; the outputs are the same either way. GPUPROF_PROGRESS_AFTER=0
# draws from the start instead of after a second.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 3 --steps 60 --kernels 1200 -o a.gpz >/dev/null || fail "tracegen"

# Not a terminal: stderr stays empty, even with no delay.
GPUPROF_PROGRESS_AFTER=0 "$GPUPROF" export --perfetto plain.pftrace a.gpz >out 2>err ||
	fail "export: $(cat err)"
[ -s err ] && fail "progress off a terminal: $(cat err)"
GPUPROF_PROGRESS_AFTER=0 "$GPUPROF" stats a.gpz >stats.plain 2>err || fail "stats: $(cat err)"
[ -s err ] && fail "progress off a terminal (stats): $(cat err)"

command -v script >/dev/null 2>&1 || { echo "skip: no script(1) for a pseudo-terminal"; exit 77; }
script -q -c true /dev/null >/dev/null 2>&1 </dev/null ||
	{ echo "skip: script(1) cannot make a pseudo-terminal here"; exit 77; }

# A terminal: reading and exporting lines, each ended by an erase; same file.
GPUPROF_PROGRESS_AFTER=0 script -q -c "'$GPUPROF' export --perfetto tty.pftrace a.gpz" \
	/dev/null >tty.txt </dev/null || fail "export in a pseudo-terminal"
cmp -s tty.pftrace plain.pftrace || fail "the export differs on a terminal"
tr '\r' '\n' <tty.txt >tty.lines
grep -q '^gpuprof: reading  *[0-9]*% .* of .* MB, .* records, .* MB/s' tty.lines ||
	fail "no reading line: $(head -c 400 tty.txt | od -c | head)"
grep -q '^gpuprof: exporting .* events' tty.lines || fail "no exporting line: $(cat tty.lines)"
# The last thing on the terminal is an erased line: nothing of the progress stays.
tail -c 4 tty.txt | od -An -c | tr -d ' \n' | grep -q '\\r033\[K' ||
	fail "the line is not erased at the end: $(tail -c 20 tty.txt | od -c)"

GPUPROF_PROGRESS_AFTER=0 script -q -c "'$GPUPROF' export --perfetto tty.json a.gpz" \
	/dev/null >tty.txt </dev/null || fail "JSON export in a pseudo-terminal"
tr '\r' '\n' <tty.txt | grep -q '^gpuprof: exporting .* events' || fail "no JSON exporting line"

# Importing an nsys export: rows read (the total is not known ahead) and records written.
"$GPUPROF" export --sqlite a.sqlite a.gpz >/dev/null 2>&1 || fail "export --sqlite"
GPUPROF_PROGRESS_AFTER=0 script -q -c "'$GPUPROF' convert a.sqlite back.gpz" \
	/dev/null >tty.txt </dev/null || fail "convert in a pseudo-terminal"
tr '\r' '\n' <tty.txt | grep -q '^gpuprof: importing [0-9,]* rows, [0-9,]* records, ' ||
	fail "no importing line with records: $(tr '\r' '\n' <tty.txt | head -3)"

# --quiet, on a terminal: nothing.
GPUPROF_PROGRESS_AFTER=0 script -q -c "'$GPUPROF' export --quiet --perfetto q.pftrace a.gpz" \
	/dev/null >q.txt </dev/null || fail "export --quiet in a pseudo-terminal"
[ -s q.txt ] && fail "--quiet drew: $(od -c q.txt | head -3)"
GPUPROF_PROGRESS_AFTER=0 script -q -c "'$GPUPROF' stats --quiet a.gpz >stats.q" \
	/dev/null >q.txt </dev/null || fail "stats --quiet in a pseudo-terminal"
[ -s q.txt ] && fail "stats --quiet drew: $(od -c q.txt | head -3)"
cmp -s stats.q stats.plain || fail "stats --quiet printed something else"

# The default delay: a job shorter than a second draws nothing.
"$TRACEGEN" --seed 3 --steps 2 --kernels 5 -o small.gpz >/dev/null || fail "tracegen small"
script -q -c "'$GPUPROF' stats small.gpz >/dev/null" /dev/null >fast.txt </dev/null ||
	fail "stats in a pseudo-terminal"
grep -q 'gpuprof: ' fast.txt && fail "a short job drew progress: $(od -c fast.txt | head -3)"
exit 0
