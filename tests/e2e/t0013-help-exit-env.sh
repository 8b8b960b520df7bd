#!/bin/sh
# Every command's help lists its exit statuses, from one table; the manual page has an
# EXIT STATUS section with that table and an
# ENVIRONMENT section naming every GPUPROF_* variable the sources read.
. "$TOP/tests/e2e/lib.sh"

expect_rc 0 "$GPUPROF" help
cmds=$(sed -n '/^commands:/,/^$/p' out | awk 'NF > 1 {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || fail "commands: $cmds"
# The exit statuses come from one table: the command list shows all of it, each
# command's help ends with its rows, which are rows of that table, and no help
# text says anything else about exit statuses.
sed -n '/^Exit status:$/,$p' out | sed 1d >all.txt
[ "$(wc -l <all.txt)" -ge 5 ] || fail "the command list shows no exit status table"
sed 's/ ([a-z -]*)$//' all.txt >all-rows.txt
for c in $cmds; do
	"$GPUPROF" "$c" --help >h.txt 2>&1 || fail "$c --help failed"
	[ "$(grep -i 'exit status' h.txt | grep -vc '^  ')" -eq 1 ] ||
		fail "$c --help says 'exit status' other than in its table: $(grep -i 'exit status' h.txt)"
	sed -n '/^Exit status:$/,$p' h.txt | sed 1d >rows.txt
	[ -s rows.txt ] || fail "$c --help lists no exit status"
	grep -vqE '^  ([0-9]+|N) +[a-zA-Z]' rows.txt && fail "$c: a row is not 'STATUS MEANING': $(cat rows.txt)"
	grep -qE '^  2 +usage' rows.txt || fail "$c --help lists no usage status 2"
	grep -qE '^  (0|N) ' rows.txt || fail "$c --help lists no success status"
	while IFS= read -r row; do
		grep -qxF "$row" all-rows.txt || fail "$c: '$row' is not in the exit status table"
	done <rows.txt
	[ "$(cut -c3-6 rows.txt | sort | uniq -d)" = "" ] || fail "$c lists a status twice: $(cat rows.txt)"
done
"$GPUPROF" diff --help | grep -qE '^  3 +a gated metric regressed$' || fail "diff: no status 3"
"$GPUPROF" record --help | grep -qE '^  127 ' || fail "record: no status 127"
"$GPUPROF" report --help | grep -qE '^  3 ' && fail "report lists diff's status 3"

expect_rc 0 "$GPUPROF" help --man
mv out man.txt
sed -n '/^\.SH EXIT STATUS/,/^\.SH ENV/p' man.txt >exit.txt
grep -qE '^  127 +CMD was not found \(record\)$' exit.txt || fail "the manual's EXIT STATUS: $(cat exit.txt)"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' man.txt >env.txt
[ -s env.txt ] || fail "no ENVIRONMENT section"
vars=$(cd "$TOP" && grep -rhoE '"GPUPROF_[A-Z0-9_]+"' base trace import analyze report cli inject \
	tests/unit/test-main.c | tr -d '"' | sort -u)
[ "$(echo "$vars" | wc -w)" -ge 10 ] || fail "variables found: $vars"
for v in $vars; do
	grep -q "^\.B $v\$" env.txt || fail "$v missing from the manual's ENVIRONMENT"
done
exit 0
