#!/bin/sh
# Output files (docs/reliability.md): through a symbolic link the target is
# written and the link stays; a FIFO is written in place; "-" is standard
# output for every output option; two outputs naming one file, or an output
# naming an input, are usage errors; nothing but our own temporary is ever
# removed. Device nodes: t3102.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 4 --kernels 50 -o t.gpz >/dev/null || fail tracegen
cat >k.json <<'JSON'
{"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7,
   "ts": 1000.000, "dur": 100.5},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020.125,
   "dur": 30.0005, "args": {"device": 0, "stream": 7, "correlation": 11}}
 ]}
JSON

# Each output option: NAME, then the command with @ where the output goes.
# The reference output of each is first written to a plain file.
cmds() {
	cat <<'EOF'
report-text report -o @ t.gpz
report-json report --format json -o @ t.gpz
report-md report --format markdown -o @ t.gpz
report-html report --format html -o @ t.gpz
flame-folded flame -o @ t.gpz
flame-svg flame --format svg -o @ t.gpz
flame-speedscope flame --format speedscope -o @ t.gpz
perfetto export --force --perfetto @ t.gpz
diff-json diff -q --json @ t.gpz -- t.gpz
diff-md diff -q --markdown @ t.gpz -- t.gpz
diff-junit diff -q --junit @ t.gpz -- t.gpz
convert convert --force k.json @
EOF
}
run_to() { # NAME CMD... with @ replaced by $out
	name=$1
	shift
	set -f
	# shellcheck disable=SC2046
	set -- $(echo "$*" | sed "s|@|$out|")
	set +f
	"$GPUPROF" "$@"
}

mkdir ref
cmds | while read -r name cmd; do
	out=ref/$name run_to "$name" "$cmd" >/dev/null 2>err || fail "$name to a file: $(cat err)"
	[ -s "ref/$name" ] || fail "$name wrote nothing"
done || exit 1
# export --sqlite: not byte-stable (SQLite pages), checked by its header and tables.
sqlite_ok() {
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); sys.exit(c.execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0] != 200)' "$1" ||
		fail "$1 is not the SQLite export"
}
same() { # NAME FILE: FILE holds what the plain file got (convert: the same records)
	case $1 in
	convert)
		"$GPUPROF" dump "$2" >a.txt 2>&1 && "$GPUPROF" dump "ref/$1" >b.txt 2>&1 &&
			cmp -s a.txt b.txt || fail "convert output through $2 differs" ;;
	*) cmp -s "$2" "ref/$1" || fail "$1 output through $2 differs from the plain file" ;;
	esac
}

# ---- a symbolic link: the target is written, the link stays
cmds | while read -r name cmd; do
	rm -f target link
	echo old >target
	ln -s target link
	out=link run_to "$name" "$cmd" >/dev/null 2>err || fail "$name through a link: $(cat err)"
	[ -L link ] || fail "$name replaced the symbolic link"
	[ "$(readlink link)" = target ] || fail "$name changed the link"
	same "$name" target
	# A dangling link: its target is created.
	rm -f target
	out=link run_to "$name" "$cmd" >/dev/null 2>err || fail "$name through a dangling link: $(cat err)"
	[ -L link ] && [ -f target ] || fail "$name: dangling link not followed"
	same "$name" target
done || exit 1
ln -sf target link
rm -f target
expect_rc 0 "$GPUPROF" export --sqlite link t.gpz
[ -L link ] && [ -f target ] || fail "sqlite through a dangling link"
sqlite_ok target
expect_rc 1 "$GPUPROF" export --sqlite link t.gpz
grep -q "already exists" err || fail "no --force through a link: $(cat err)"
expect_rc 0 "$GPUPROF" export --force --sqlite link t.gpz
[ -L link ] || fail "sqlite --force replaced the link"
sqlite_ok target

# ---- a FIFO: written in place, read as it comes
mkfifo fifo
cmds | while read -r name cmd; do
	timeout 60 cat fifo >got &
	out=fifo run_to "$name" "$cmd" >/dev/null 2>err || fail "$name to a FIFO: $(cat err)"
	wait
	[ -p fifo ] || fail "$name replaced the FIFO"
	same "$name" got
done || exit 1
timeout 60 cat fifo >got.sqlite &
expect_rc 0 "$GPUPROF" export --sqlite fifo t.gpz
wait
[ -p fifo ] || fail "sqlite replaced the FIFO"
sqlite_ok got.sqlite

# ---- "-" is standard output, for every output option; no file named "-"
cmds | while read -r name cmd; do
	out=- run_to "$name" "$cmd" >got 2>err || fail "$name to -: $(cat err)"
	same "$name" got
	out=/dev/stdout run_to "$name" "$cmd" >got 2>err || fail "$name to /dev/stdout: $(cat err)"
	same "$name" got
done || exit 1
expect_rc 0 "$GPUPROF" export --sqlite - t.gpz
sqlite_ok out
[ ! -e ./- ] || fail "a file named - was created"
# Standard output redirected to a file is written there, not replaced.
echo keep >appended
"$GPUPROF" report -o /dev/stdout t.gpz >>appended || fail "report to /dev/stdout appended"
head -n 1 appended | grep -qx keep || fail "/dev/stdout replaced the file the shell opened"
[ "$(wc -l <appended)" -eq $(($(wc -l <ref/report-text) + 1)) ] || fail "appended: $(cat appended)"

# ---- two outputs naming one file, or an output naming an input: usage errors
expect_rc 2 "$GPUPROF" export --sqlite x.out --perfetto x.out t.gpz
grep -q "'x.out' and 'x.out' are the same file" err || fail "same output: $(cat err)"
expect_rc 2 "$GPUPROF" export --sqlite x.out --perfetto ./x.out t.gpz
ln -s x.out x.link
expect_rc 2 "$GPUPROF" diff -q --json x.out --markdown x.link t.gpz -- t.gpz
touch y.out && ln y.out y.hard
expect_rc 2 "$GPUPROF" diff -q --json y.out --junit y.hard t.gpz -- t.gpz
expect_rc 2 "$GPUPROF" export --perfetto - --sqlite /dev/stdout t.gpz
expect_rc 2 "$GPUPROF" diff --json - t.gpz -- t.gpz
grep -q "add --no-table" err || fail "diff table and -: $(cat err)"
cp t.gpz u.gpz
expect_rc 2 "$GPUPROF" report -o u.gpz u.gpz
grep -q "output 'u.gpz' is the input 'u.gpz'" err || fail "input as output: $(cat err)"
expect_rc 2 "$GPUPROF" export --force --sqlite u.gpz u.gpz
expect_rc 2 "$GPUPROF" flame -o ./u.gpz u.gpz
expect_rc 2 "$GPUPROF" convert k.json k.json
cmp -s t.gpz u.gpz || fail "an input was changed"
[ ! -e x.out ] || fail "a refused output was created"

# ---- one rule for convert and export: an existing regular file only with --force
echo precious >keep.txt
expect_rc 1 "$GPUPROF" convert k.json keep.txt
grep -q "'keep.txt' already exists (use --force to replace it)" err || fail "convert: $(cat err)"
[ "$(cat keep.txt)" = precious ] || fail "convert replaced a file without --force"
expect_rc 1 "$GPUPROF" export --perfetto keep.txt t.gpz
[ "$(cat keep.txt)" = precious ] || fail "export replaced a file without --force"
expect_rc 0 "$GPUPROF" convert --force k.json keep.txt
[ "$(cat keep.txt)" != precious ] || fail "convert --force did not replace the file"
expect_rc 0 "$GPUPROF" dump keep.txt
expect_rc 0 "$GPUPROF" convert k.json /dev/null
expect_rc 0 "$GPUPROF" convert k.json -
[ -s out ] || fail "convert to standard output wrote nothing"

# ---- failures leave the output as it was, and no temporary behind
echo precious >keep.txt
expect_rc 1 "$GPUPROF" convert nosuch.json keep.txt
[ "$(cat keep.txt)" = precious ] || fail "a failed convert harmed its output"
echo '{"traceEvents": [ {"ph": "X", "ts": ' >cut.json
expect_rc 1 "$GPUPROF" convert cut.json keep.txt
[ "$(cat keep.txt)" = precious ] || fail "a failed convert harmed its output"
expect_rc 1 "$GPUPROF" report -o nodir/r.txt t.gpz
grep -q "^gpuprof: error: nodir/r.txt: cannot create: " err || fail "no folder: $(cat err)"
mkdir adir
expect_rc 1 "$GPUPROF" report -o adir t.gpz
grep -q "adir: cannot write: Is a directory" err || fail "a folder: $(cat err)"
# A replaced file keeps its permissions.
echo old >mode.txt && chmod 640 mode.txt
expect_rc 0 "$GPUPROF" report -o mode.txt t.gpz
[ "$(stat -c %a mode.txt)" = 640 ] || fail "mode not kept: $(stat -c %a mode.txt)"
leftover=$(ls -a | grep -c 'tmp-' || true)
[ "$leftover" -eq 0 ] || fail "temporary files left: $(ls -a | grep tmp-)"
exit 0
