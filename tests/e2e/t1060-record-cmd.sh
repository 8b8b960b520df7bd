#!/bin/sh
# gpuprof record: sets the variables, runs the program, passes its exit
# status through (128 + signal), names each trace with a one-line summary;
# without a driver: one warning, the program runs untraced.
. "$TOP/tests/fakecuda/e2e-lib.sh"

plain "$GPUPROF" record -o runs -- "$RUN" "$SCEN/host.txt" >out.txt 2>err.txt
rc=$?
[ $rc = 7 ] || fail "exit status $rc, not 7"
grep -q '^first line$' out.txt || fail "program output"
set -- runs/gpuprof-*.gpz
[ -f "$1" ] || fail "no trace in runs/: $(ls runs)"
grep -q "^gpuprof: .*runs/gpuprof-.*\.gpz: [0-9,]* events over [0-9.]* s, no drops" err.txt ||
	fail "summary: $(cat err.txt)"
[ "$(grep -c '^gpuprof' err.txt)" = 1 ] || fail "stderr: $(cat err.txt)"

plain "$GPUPROF" record -o 'one-%p.gpz' --kinds kernel,nvtx --flush-ms 50 --buffer-mb 8 \
	-- "$LIFE" output >/dev/null 2>err.txt
[ $? = 3 ] || fail "life: exit status"
set -- one-*.gpz
[ -f "$1" ] || fail "pattern not used: $(ls)"
"$CHECK" stat "$1" | grep -q '^records api' && fail "--kinds ignored"

plain "$GPUPROF" record -o sig.gpz -- "$LIFE" signal TERM >/dev/null 2>err.txt
[ $? = 143 ] || fail "a program killed by SIGTERM: not 143"
grep -q 'sig.gpz: ' err.txt || fail "no summary after SIGTERM"

env LD_LIBRARY_PATH=/nonexistent "$GPUPROF" record -o nodrv.gpz -- "$RUN" "$SCEN/host.txt" \
	>out.txt 2>err.txt
[ $? = 7 ] || fail "no driver: exit status"
grep -q '^first line$' out.txt || fail "no driver: program output"
[ "$(grep -c '^gpuprof' err.txt)" = 1 ] || fail "no driver: stderr: $(cat err.txt)"
grep -q 'no usable CUDA driver' err.txt || fail "no driver: $(cat err.txt)"
[ -e nodrv.gpz ] && fail "no driver: a trace was written"

"$GPUPROF" record >/dev/null 2>&1
[ $? = 2 ] || fail "no command: not a usage error"
"$GPUPROF" record --kinds bogus -- true >/dev/null 2>&1
[ $? = 2 ] || fail "bad kinds: not a usage error"
plain "$GPUPROF" record -o x.gpz -- /nonexistent/program >/dev/null 2>&1
[ $? = 127 ] || fail "missing program: not 127"
exit 0
