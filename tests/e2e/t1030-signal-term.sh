#!/bin/sh
# SIGTERM and SIGINT mid-run: the trace is complete (footer, every record
# made before the signal), and the program still dies by the signal.
. "$TOP/tests/fakecuda/e2e-lib.sh"

for sig in TERM INT; do
	inject env GPUPROF_OUTPUT="$PWD/$sig.gpz" "$LIFE" -e "$sig.exp" signal $sig >out.txt 2>err.txt
	rc=$?
	want=143
	[ $sig = INT ] && want=130
	[ $rc = $want ] || fail "$sig: exit status $rc, not $want"
	grep -q gpuprof err.txt && fail "$sig: stderr: $(cat err.txt)"
	[ "$(stat_val $sig.gpz footer)" = yes ] || fail "$sig: no footer"
	[ "$(stat_val $sig.gpz process-exit)" = $want ] || fail "$sig: exit status not recorded"
	"$CHECK" subset $sig.gpz $sig.exp || fail "$sig: records missing"
	"$CHECK" nvtx $sig.gpz >/dev/null || fail "$sig: nesting"
done
exit 0
