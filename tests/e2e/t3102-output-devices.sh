#!/bin/sh
# Output files that are device nodes (docs/reliability.md): written in place,
# never replaced, truncated beyond what open does, or removed, also when the
# write fails. The nodes are copies of /dev/null (1,3) and /dev/full (1,7)
# made with mknod in the test's folder: root only, else skipped.
. "$TOP/tests/e2e/lib.sh"

mknod full c 1 7 2>/dev/null && mknod null c 1 3 2>/dev/null || {
	echo "skip: mknod needs root"
	exit 77
}
"$TRACEGEN" --seed 5 --steps 4 --kernels 50 -o t.gpz >/dev/null || fail tracegen
cat >k.json <<'JSON'
{"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020.125,
   "dur": 30.0005, "args": {"device": 0, "stream": 7, "correlation": 11}}
 ]}
JSON

is_node() { # NAME MAJOR, MINOR: still that character device
	[ -c "$1" ] && [ "$(stat -c '%t,%T' "$1")" = "$2" ] || fail "$1 is no longer device $2: $(ls -l "$1")"
}
cat >cmds <<'EOF2'
report -o @ t.gpz
report --format html -o @ t.gpz
report --format json -o @ t.gpz
flame -o @ t.gpz
flame --format svg -o @ t.gpz
export --perfetto @ t.gpz
export --sqlite @ t.gpz
export --force --sqlite @ t.gpz
diff -q --json @ t.gpz -- t.gpz
diff -q --markdown @ t.gpz -- t.gpz
diff -q --junit @ t.gpz -- t.gpz
convert k.json @
EOF2
while read -r cmd; do
	set -f
	# shellcheck disable=SC2046
	set -- $(echo "$cmd" | sed 's|@|null|')
	set +f
	expect_rc 0 "$GPUPROF" "$@"
	is_node null 1,3
	set -f
	# shellcheck disable=SC2046
	set -- $(echo "$cmd" | sed 's|@|full|')
	set +f
	expect_rc 1 "$GPUPROF" "$@"
	[ "$(wc -l <err)" -eq 1 ] || fail "$cmd: not one line: $(cat err)"
	grep -Eq "^gpuprof: error: full: (cannot write|write failed): No space left on device" err ||
		fail "$cmd: message: $(cat err)"
	is_node full 1,7
done <cmds || exit 1
# Through a symbolic link to the device: the same.
ln -s full link
expect_rc 1 "$GPUPROF" report -o link t.gpz
[ -L link ] || fail "the link was replaced"
is_node full 1,7
[ "$(ls | grep -c tmp-)" -eq 0 ] || fail "temporary files left: $(ls)"
exit 0
