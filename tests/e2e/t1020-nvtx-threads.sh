#!/bin/sh
# NVTX through the real NVTX loader on many threads: push/pop nesting per
# thread and domain, start/end ending on another thread, registered strings,
# categories and their names, colors, scalar payloads, wide strings, marks;
# kernels launched inside ranges lie inside them (one clock). Both clock
# paths: the CPU counter (converted by the writer) and clock_gettime.
. "$TOP/tests/fakecuda/e2e-lib.sh"

for clock in auto monotonic; do
	inject env GPUPROF_NVTX_CLOCK=$clock GPUPROF_OUTPUT="$PWD/$clock.gpz" \
		"$NVTXT" -e "$clock.exp" -t 8 -n 150 >out.txt 2>err.txt ||
		fail "$clock: exit $?: $(cat err.txt)"
	[ -s err.txt ] && fail "$clock: stderr: $(cat err.txt)"
	"$CHECK" compare "$clock.gpz" "$clock.exp" || fail "$clock: trace differs"
	grep -q '^C ' "$clock.exp" || fail "$clock: no containment checks"
	[ "$(stat_val "$clock.gpz" 'records nvtx')" -eq 8400 ] || fail "$clock: ranges missing"
done
exit 0
