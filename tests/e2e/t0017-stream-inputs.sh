#!/bin/sh
# Streams as inputs: "-", /dev/stdin, a pipe (/dev/fd/N), a FIFO, for every
# format (.gpz, Kineto JSON plain and gzip, nsys SQLite), read as their files
# are; a FIFO with no writer says so before it waits, in every command; one
# inside a directory is left out with a note; nothing is left in TMPDIR.
. "$TOP/tests/e2e/lib.sh"

mkdir tmp
TMPDIR=$PWD/tmp
export TMPDIR
"$TRACEGEN" --steps 3 --kernels 20 -o t.gpz >/dev/null || fail "tracegen"
"$GPUPROF" export --perfetto t.json t.gpz 2>/dev/null || fail "export --perfetto"
"$GPUPROF" export --sqlite t.sqlite t.gpz 2>/dev/null || fail "export --sqlite"
gzip -c t.json >t.json.gz

# The same answer from a stream as from the file, for each format and way in.
for f in t.gpz t.json t.json.gz t.sqlite; do
	expect_rc 0 "$GPUPROF" gaps "$f"
	mv out want
	cat "$f" | "$GPUPROF" gaps - >out 2>err || fail "gaps - <$f: $(cat err)"
	cmp -s want out || fail "gaps - <$f differs from gaps $f"
	[ -s err ] && fail "gaps - <$f: stderr: $(cat err)"
	cat "$f" | "$GPUPROF" gaps /dev/stdin >out 2>err || fail "gaps /dev/stdin <$f: $(cat err)"
	cmp -s want out || fail "gaps /dev/stdin <$f differs"
	cat "$f" | "$GPUPROF" info - >out 2>err || fail "info - <$f: $(cat err)"
	grep -q "^  format " out || fail "info - <$f: $(head -n 3 out)"
	cat "$f" | "$GPUPROF" dump - >out 2>err || fail "dump - <$f: $(cat err)"
	grep -q "^kernel " out || fail "dump - <$f: no kernel record"
done
# The case: process substitution (bash), a pipe named /dev/fd/63.
if command -v bash >/dev/null; then
	expect_rc 0 "$GPUPROF" report t.json
	grep -v -e '^t.json ' -e '^File ' -e '^-----' out >want
	bash -c '"$1" report <(zcat t.json.gz)' sh "$GPUPROF" >out 2>err ||
		fail "report <(zcat t.json.gz): $(cat err)"
	[ -s err ] && fail "report <(zcat t.json.gz): stderr: $(cat err)"
	grep -q '^/dev/fd/[0-9]' out || fail "report <(zcat ...) does not name /dev/fd/N"
	grep -v -e '^/dev/fd/[0-9]' -e '^File ' -e '^-----' out >got
	cmp -s want got || { diff want got | head; fail "report <(zcat ...) differs"; }
fi
# convert from a pipe, export from a pipe.
cat t.json.gz | "$GPUPROF" convert - c.gpz 2>err || fail "convert -: $(cat err)"
"$GPUPROF" gaps c.gpz >a && "$GPUPROF" gaps t.json >b && cmp -s a b || fail "convert - differs"

# "-" in is standard input, "-" out standard output: not the same file...
cat t.json.gz | "$GPUPROF" convert - - >s.gpz 2>err || fail "convert - -: $(cat err)"
"$GPUPROF" dump s.gpz >a && "$GPUPROF" dump c.gpz >b && cmp -s a b ||
	fail "convert - - differs from convert - c.gpz"
# ...but standard input read from a file is that file: never written over.
cp t.gpz u.gpz
"$GPUPROF" report -o u.gpz - <u.gpz >out 2>err && fail "report -o u.gpz - <u.gpz exited 0"
grep -q "^gpuprof: error: output 'u.gpz' is the input '-'" err || fail "-o u.gpz - <u.gpz: $(cat err)"
cmp -s u.gpz t.gpz || fail "u.gpz was written over"

# A FIFO: every command says it waits before it blocks, then reads the trace.
mkfifo ff
wait_for() { # wait_for FILE TEXT: up to 20 s for TEXT in FILE
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 400 ] && return 1
		sleep 0.05
	done
}
for c in report info dump stats gaps launches ops memory breakdown flame occupancy mfu \
	critical-path comm diff export convert; do
	feed=t.gpz
	case $c in
	diff) set -- diff ff -- t.gpz ;;
	export) set -- export --force --perfetto e.json ff ;;
	convert) set -- convert --force ff c2.gpz; feed=t.json ;;
	*) set -- "$c" ff ;;
	esac
	"$GPUPROF" "$@" >out 2>err &
	pid=$!
	wait_for err "gpuprof: ff: waiting for a writer" || { kill $pid; fail "$c: no waiting line: $(cat err)"; }
	cat $feed >ff
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || fail "$c on a FIFO exited $rc: $(cat err)"
	[ "$(grep -vc 'waiting for a writer' err)" -eq 0 ] || fail "$c: stderr: $(cat err)"
done

# The other files a command reads (a device file here) wait the same way.
printf 'name="Lab GPU" match="H200" cc=9.0 bf16=100 mem_bw=1000\n' >lab.dev
"$GPUPROF" devices --device-file ff >out 2>err &
pid=$!
wait_for err "gpuprof: ff: waiting for a writer" || { kill $pid; fail "devices: no waiting line: $(cat err)"; }
cat lab.dev >ff
wait $pid || fail "devices --device-file on a FIFO: $(cat err)"
grep -q "Lab GPU" out || fail "devices --device-file ff: no row from the file"
"$GPUPROF" devices --device-file lab.dev >want
cmp -s want out || fail "devices --device-file ff differs from the file"

# A FIFO inside a directory input: left out with a note, the rest read, no wait.
mkdir d
cp t.gpz d/
mkfifo d/x.gpz
expect_rc 0 timeout 20 "$GPUPROF" gaps d
grep -q "^gpuprof: note: d/x.gpz: not a regular file (a FIFO, socket or device): left out$" err ||
	fail "no note of the FIFO in d: $(cat err)"
[ "$(wc -l <err)" -eq 1 ] || fail "gaps d: said more than once: $(cat err)"
"$GPUPROF" gaps t.gpz >want
cmp -s want out || fail "gaps d differs from gaps t.gpz"

# Devices that never end are not read for ever: no format claims their bytes.
expect_rc 1 timeout 20 "$GPUPROF" info /dev/zero
grep -q "^gpuprof: error: /dev/zero: not a gpuprof trace" err || fail "/dev/zero: $(cat err)"
expect_rc 1 timeout 20 "$GPUPROF" convert /dev/urandom ur.gpz
[ -e ur.gpz ] && fail "convert /dev/urandom wrote ur.gpz"
# An empty stream.
: | "$GPUPROF" gaps - >out 2>err && fail "gaps of an empty stream exited 0"
grep -q "^gpuprof: error: -: " err || fail "empty stream: $(cat err)"

[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
echo ok
