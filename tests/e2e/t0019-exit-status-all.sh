#!/bin/sh
# Every command (as `gpuprof help` lists them) on inputs it cannot read exits 1,
# the status the exit-status table documents, with one error line naming the
# input, and writes no output: a missing file, a file of no known format, an
# empty file, a directory with no trace, a trace cut before its first record.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --steps 3 --kernels 20 -o t.gpz >/dev/null || fail "tracegen"
head -c 60 t.gpz >cut.gpz
printf 'not a trace at all\n' >junk.gpz
: >empty.gpz
mkdir none

cmds=$("$GPUPROF" help | awk '/^  [a-z]/ { print $1 }')
[ "$(echo "$cmds" | wc -l)" -ge 19 ] || fail "gpuprof help lists: $cmds"
n=0
for c in $cmds; do
	# record runs a program (its status is the program's); help and completion read no
	# input; trigger takes a process id (t1110).
	case $c in record | help | completion | trigger) continue ;; esac
	"$GPUPROF" help "$c" >h 2>&1 || fail "help $c"
	grep -q '^  1    ' h || fail "help $c documents no exit status 1"
	for in in missing.gpz junk.gpz empty.gpz none cut.gpz; do
		case $c in
		convert) set -- convert "$in" o.gpz ;;
		diff) set -- diff --json o.json "$in" -- t.gpz ;;
		export) set -- export --sqlite o.sqlite "$in" ;;
		devices) set -- devices --device-file "$in" ;;
		report | flame) set -- "$c" -o o.out "$in" ;;
		*) set -- "$c" "$in" ;;
		esac
		"$GPUPROF" "$@" >out 2>err
		rc=$?
		[ $rc -eq 1 ] || fail "'$*' exited $rc, expected 1: $(cat err)"
		grep -q "^gpuprof: error: .*$in" err || fail "'$*': no error naming $in: $(cat err)"
		[ "$(grep -c '^gpuprof: error: ' err)" -ge 1 ] || fail "'$*': $(cat err)"
		ls o.* >/dev/null 2>&1 && fail "'$*' wrote $(ls o.*)"
		n=$((n + 1))
	done
done
echo "ok: $n runs"
