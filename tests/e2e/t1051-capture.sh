#!/bin/sh
# Capture control: cudaProfilerStart/Stop, the first NVTX range with a name,
# delay and duration. GPU work is judged by the call that launched it.
. "$TOP/tests/fakecuda/e2e-lib.sh"

for cap in cudaProfilerApi nvtx:train; do
	rm -f c.gpz # a trace is never written over
	inject env GPUPROF_CAPTURE=$cap GPUPROF_OUTPUT="$PWD/c.gpz" "$RUN" "$SCEN/capture.txt" \
		>/dev/null 2>err.txt || fail "$cap: exit $?"
	[ -s err.txt ] && fail "$cap: stderr: $(cat err.txt)"
	"$CHECK" stat c.gpz >stat.txt
	grep -q '^kernel inside 7$' stat.txt || fail "$cap: inside: $(grep kernel stat.txt)"
	grep -q '^kernel outside' stat.txt && fail "$cap: outside kernels: $(grep kernel stat.txt)"
done
inject env GPUPROF_OUTPUT="$PWD/all.gpz" "$RUN" "$SCEN/capture.txt" >/dev/null 2>&1
[ "$(stat_val all.gpz 'kernel outside_after')" = 4 ] || fail "all: outside_after"

cat >timed.txt <<'SCEN'
init
context 1 0
stream 7 1
launch 0 1 7 early
sleep 400
launch 0 1 7 middle
sleep 400
launch 0 1 7 late
SCEN
inject env GPUPROF_CAPTURE=delay:0.2,duration:0.4 GPUPROF_OUTPUT="$PWD/t.gpz" "$RUN" timed.txt \
	>/dev/null 2>&1 || fail "timed: exit $?"
"$CHECK" stat t.gpz >stat.txt
grep -q '^kernel middle 1$' stat.txt || fail "timed: middle: $(grep kernel stat.txt)"
grep -q '^kernel early\|^kernel late' stat.txt && fail "timed: $(grep kernel stat.txt)"
exit 0
