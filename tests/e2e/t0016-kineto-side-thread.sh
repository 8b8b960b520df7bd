#!/bin/sh
# The Kineto importer on two threads (a side thread parses part of each buffer of
# events, import/kineto.c) writes the very records, file and message of one
# thread: for generated traces with escapes, "}, {" inside strings and inside
# arguments, errors in the side thread's part (a bad value, an event without
# "dur"), a cut gzip stream, and for the anchors; buffers split however
# small (tests/tools/kineto-drive TRACE OUT THREADS SPLIT_MIN), and at the
# default size through gpuprof itself, which then says at debug level how
# many events the side thread read (it times a few buffers each way and
# reads the rest the faster way).
. "$TOP/tests/e2e/lib.sh"

drv=$BUILD/tests/kineto-drive
[ -x "$drv" ] || fail "missing $drv (build first)"

# trace N [MODE]: a PyTorch-profiler trace of N kernel launches on stdout
trace() {
	awk -v n="$1" -v mode="${2:-}" 'BEGIN {
		printf "{\"schemaVersion\": 1, \"traceEvents\": [\n";
		for (i = 0; i < n; i++) {
			t = 1000 + i * 10;
			name = "aten::mm";
			if (i % 97 == 5) name = "esc\\\"aped \\u00e9 name";
			if (i % 89 == 7) name = "a}, {\\\"ph\\\": \\\"X\\\", b";
			args = "";
			if (i % 83 == 3) args = ", \"args\": {\"list\": [{\"a\": 1}, {\"b\": [2, {\"c\": 3}]}], \"External id\": 4}";
			if (i % 79 == 9) args = ", \"args\": {\"Input Dims\": [[1, 2], [3]], \"note\": \"x},\\n{y\"}";
			dur = "4.125";
			if (mode == "bad" && i == int(n * 2 / 3)) dur = "\"x\"";
			if (mode == "nodur" && i == int(n * 3 / 4)) {
				printf "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %d.5},\n", name, t;
				continue;
			}
			printf "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %d.5, \"dur\": %s%s},\n", name, t, dur, args;
			printf "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d.75, \"dur\": 2.5, \"args\": {\"correlation\": %d}},\n", t + 1, i + 1;
			printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d.125, \"dur\": 6.5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d, \"grid\": [%d, 1, 1], \"block\": [128, 1, 1]}},\n", i % 7, t + 3, i + 1, 1 + i % 5;
			printf "  {\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %d, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n", i + 1, t + 3;
		}
		printf "  {\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"s\": \"t\"}\n";
		printf "],\n\"baseTimeNanoseconds\": 1700000000000000000}\n";
	}'
}

trace 12000 >big.json || fail "writing big.json"
trace 3000 bad >bad.json || fail "writing bad.json"
trace 3000 nodur >nodur.json || fail "writing nodur.json"
trace 40 >small.json || fail "writing small.json"
inputs="big.json bad.json nodur.json small.json"
if command -v gzip >/dev/null 2>&1; then
	gzip -c big.json >big.json.gz || fail gzip
	head -c $(($(wc -c <big.json.gz) * 2 / 3)) big.json.gz >cut.json.gz
	inputs="$inputs big.json.gz cut.json.gz"
fi
if have_anchors kineto/hta; then
	inputs="$inputs $(find "$ANCHORS/kineto" -name '*.json' -o -name '*.json.gz' | sort |
		sed -n '1p;5p;9p;13p;$p')"
fi

# gpz A B: the same file but for the header's creation time and file id (bytes 21-32)
same_gpz() {
	[ "$(wc -c <"$1")" = "$(wc -c <"$2")" ] || return 1
	[ -z "$(cmp -l "$1" "$2" | awk '$1 < 21 || $1 > 32' | head -1)" ]
}

n=0
for f in $inputs; do
	"$drv" "$f" one.gpz >one.out 2>one.err
	rc1=$?
	for split in 0 64 4096 32768; do
		"$drv" "$f" two.gpz 2 "$split" >two.out 2>two.err
		rc2=$?
		[ "$rc1" = "$rc2" ] || fail "$f, split $split: exit $rc2, one thread $rc1"
		cmp -s one.out two.out || fail "$f, split $split: records differ: $(cat one.out two.out)"
		cmp -s one.err two.err || fail "$f, split $split: $(cat two.err), one thread $(cat one.err)"
		same_gpz one.gpz two.gpz || fail "$f, split $split: the files differ"
		n=$((n + 1))
	done
	case $f in
	bad.json) grep -q '^bad.json: line [0-9]* (byte [0-9]*): "dur" must be a number' one.err ||
		fail "bad.json: $(cat one.err)" ;;
	nodur.json) grep -q '^nodur.json: line [0-9]* (byte [0-9]*): complete event without "dur"' \
		one.err || fail "nodur.json: $(cat one.err)" ;;
	cut.json.gz) [ "$rc1" = 1 ] || fail "cut.json.gz imported" ;;
	big.json | big.json.gz) [ "$rc1" = 0 ] || fail "$f: $(cat one.err)" ;;
	esac
done
echo "$n comparisons" >&2

# Through gpuprof at the default split: the same outputs, and the side thread did read events.
for cmd in "report" "report --format json" "gaps"; do
	"$GPUPROF" $cmd --threads 1 big.json >one.out 2>one.err || fail "$cmd: $(cat one.err)"
	"$GPUPROF" $cmd --threads 2 big.json >two.out 2>two.err || fail "$cmd: $(cat two.err)"
	cmp -s one.out two.out || fail "$cmd: outputs differ"
	cmp -s one.err two.err || fail "$cmd: messages differ"
done
# (The side thread reads the buffers timed with it, and the others only when that was
# faster: at least the timed ones.)
GPUPROF_LOG=debug "$GPUPROF" gaps --threads 2 big.json >/dev/null 2>err || fail gaps
h=$(sed -n 's/.*big.json: the fast path read [0-9]* events (\([0-9]*\) on the side thread.*/\1/p' err)
[ -n "$h" ] && [ "$h" -gt 0 ] || fail "the side thread read ${h:-no} events: $(grep 'fast path' err)"
GPUPROF_LOG=debug "$GPUPROF" gaps --threads 1 big.json >/dev/null 2>err || fail gaps
grep -q '(0 on the side thread' err || fail "a side thread on one thread: $(grep 'fast path' err)"
exit 0
