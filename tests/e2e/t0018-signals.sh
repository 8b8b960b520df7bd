#!/bin/sh
# SIGINT, SIGTERM and SIGHUP during an import or an export: no temporary of
# ours is left (the PATH.tmp-PID-N beside an output, gpuprof-* in TMPDIR),
# the output is as it was, and the status is the shell's 128 + the signal.
. "$TOP/tests/e2e/lib.sh"

mkdir tmp
TMPDIR=$PWD/tmp
export TMPDIR
"$TRACEGEN" --steps 100 --kernels 2000 -o big.gpz >/dev/null || fail "tracegen"
"$TRACEGEN" --steps 3 --kernels 20 -o t.gpz >/dev/null || fail "tracegen"
"$GPUPROF" export --sqlite t.sqlite t.gpz 2>/dev/null || fail "export --sqlite"
"$GPUPROF" export --perfetto t.json t.gpz 2>/dev/null || fail "export --perfetto"

# A background job of a shell ignores SIGINT; env gives it back its default,
# which gpuprof then handles.
run_bg() { env --default-signal=INT "$GPUPROF" "$@" >out 2>err & pid=$!; }
wait_for() { # wait_for CMD...: up to 30 s for CMD to succeed
	i=0
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 600 ] && return 1
		sleep 0.05
	done
}
status_of() { # status_of SIG: the shell's status for a death by SIG
	case $1 in INT) echo 130 ;; TERM) echo 143 ;; HUP) echo 129 ;; esac
}
has_tmp() { ls "$@" | grep -q 'tmp-'; }
has_stream() { ls tmp | grep -q '^gpuprof-stream-'; }
check() { # check SIG WHAT: the job died of SIG, nothing of ours left
	wait $pid
	rc=$?
	[ $rc -eq "$(status_of $1)" ] || fail "$2: SIG$1 gave status $rc: $(cat err)"
	[ -z "$(ls tmp)" ] || fail "$2: SIG$1 left in TMPDIR: $(ls tmp)"
	has_tmp . && fail "$2: SIG$1 left $(ls | grep tmp-)"
	return 0
}

for sig in TERM INT HUP; do
	# An export while it writes its temporary beside the output.
	echo old >o.json
	run_bg export --force --perfetto o.json big.gpz
	wait_for has_tmp . || { kill $pid; fail "export: no temporary seen"; }
	kill -s $sig $pid
	check $sig "export --perfetto"
	[ "$(cat o.json)" = old ] || fail "SIG$sig: o.json is no longer what it was"

	# A SQLite export to a pipe nobody reads: blocked copying its temporary out.
	mkfifo p
	sleep 60 <p &
	spid=$!
	env --default-signal=INT "$GPUPROF" export --sqlite - t.gpz >p 2>err &
	pid=$!
	wait_for has_tmp tmp || { kill $pid $spid; fail "export --sqlite -: no temporary seen"; }
	sleep 0.3
	kill -s $sig $pid
	check $sig "export --sqlite - to a full pipe"
	kill $spid
	wait $spid 2>/dev/null
	rm p

	# An import from a FIFO that has had half of its trace: blocked reading.
	for f in t.json t.sqlite; do
		mkfifo ff
		run_bg report ff
		exec 4>ff
		head -c 2000 "$f" >&4
		sleep 0.3
		# an export's copy has a name (SQLite opens files by name), the others none
		case $f in
		*.sqlite) wait_for has_stream || fail "no copy of the stream in TMPDIR" ;;
		esac
		kill -s $sig $pid
		check $sig "report of a FIFO of $f"
		exec 4>&-
		rm ff
	done
done
# A long Kineto import (a 100+ MB JSON): its temporary .gpz has no name, so
# nothing is left whenever the signal comes.
"$GPUPROF" export --perfetto big.json big.gpz 2>/dev/null || fail "export big.json"
for sig in TERM INT; do
	run_bg report big.json
	sleep 0.5
	kill -s $sig $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && { echo "note: the import ended before SIG$sig"; continue; }
	[ $rc -eq "$(status_of $sig)" ] || fail "import: SIG$sig gave status $rc: $(cat err)"
	[ -z "$(ls tmp)" ] || fail "import: SIG$sig left in TMPDIR: $(ls tmp)"
done
echo ok
