#!/bin/sh
# Every command's help lists its exit status; the manual page has an
# ENVIRONMENT section naming every GPUPROF_* variable the sources read.
. "$TOP/tests/e2e/lib.sh"

expect_rc 0 "$GPUPROF" help
cmds=$(sed -n '/^commands:/,/^$/p' out | awk 'NF > 1 {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || fail "commands: $cmds"
for c in $cmds; do
	"$GPUPROF" "$c" --help >h.txt 2>&1
	grep -qi '^exit status' h.txt || grep -q 'Exit status' h.txt || fail "$c --help lists no exit status"
done

expect_rc 0 "$GPUPROF" help --man
mv out man.txt
sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' man.txt >env.txt
[ -s env.txt ] || fail "no ENVIRONMENT section"
vars=$(cd "$TOP" && grep -rhoE '"GPUPROF_[A-Z0-9_]+"' base trace import analyze report cli inject \
	tests/unit/test-main.c | tr -d '"' | sort -u)
[ "$(echo "$vars" | wc -w)" -ge 10 ] || fail "variables found: $vars"
for v in $vars; do
	grep -q "^\.B $v\$" env.txt || fail "$v missing from the manual's ENVIRONMENT"
done
exit 0
