#!/bin/sh
# Several Kineto JSON inputs of one command are converted on worker threads
# (import/ahead.c), ahead of the file the model reads: every output
# is the same bytes on one thread and on several, and a bad input gives the
# same message and exit status, the first bad one in the order given winning.
. "$TOP/tests/e2e/lib.sh"

# kineto SEED RANK: a small PyTorch-profiler trace of one rank on stdout (times
# relative to a base that follows traceEvents, as Kineto writes them)
kineto() {
	awk -v seed="$1" -v rank="$2" 'BEGIN {
		srand(seed);
		printf "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": %d, \"world_size\": 4},\n", rank;
		printf "\"traceEvents\": [\n";
		printf "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"python\"}},\n", 100 + rank;
		t = 1000 + rank * 17; # relative times: the base follows the events
		for (s = 0; s < 6; s++) {
			printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": %d, \"tid\": 7, \"ts\": %d.%03d, \"dur\": 900.5},\n", s, 100 + rank, t, s;
			for (k = 0; k < 40; k++) {
				c = s * 100 + k + 1;
				d = 3 + int(rand() * 20);
				printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": %d, \"tid\": 7, \"ts\": %d.250, \"dur\": 4.125},\n", 100 + rank, t + k * 20;
				printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": 7, \"ts\": %d.500, \"dur\": 2.25, \"args\": {\"correlation\": %d}},\n", 100 + rank, t + k * 20 + 1, c;
				printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d.125, \"dur\": %d.5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d, \"grid\": [%d, 1, 1], \"block\": [128, 1, 1]}},\n", k % 5, t + k * 20 + 5, d, c, 1 + k;
				printf "{\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %d, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n", c, t + k * 20 + 5;
			}
			t += 1000;
		}
		printf "{\"ph\": \"i\", \"name\": \"end\", \"pid\": %d, \"tid\": 7, \"ts\": %d, \"s\": \"t\"}\n", 100 + rank, t;
		printf "],\n\"baseTimeNanoseconds\": 1700000000%09d}\n", rank * 1000;
	}'
}

for r in 0 1 2 3 4; do
	kineto $((r + 11)) "$r" >"rank$r.json" || fail "writing rank$r.json"
done
if command -v gzip >/dev/null 2>&1; then
	gzip -c rank4.json >rank4.json.gz && rm rank4.json || fail gzip
	gz=rank4.json.gz
	head -c $(($(wc -c <rank4.json.gz) / 2)) rank4.json.gz >cut.json.gz
else
	gz=rank4.json
	head -c $(($(wc -c <rank4.json) / 2)) rank4.json >cut.json.gz
fi
sed 's/"dur": 4.125/"dur": "x"/' rank2.json >bad2.json
sed 's/"traceEvents"/"events"/' rank3.json >bad3.json

inputs="rank0.json rank1.json rank2.json rank3.json $gz"
sets="ok"
if have_anchors kineto/hta/trace_filter; then
	sets="$sets anchors"
fi

run() {
	name_=$1
	shift
	"$@" >"$name_.out" 2>"$name_.err"
	echo $? >"$name_.rc"
}

same() {
	for x_ in out err rc; do
		cmp -s "$1.$x_" "$2.$x_" ||
			fail "$3: $1.$x_ and $2.$x_ differ: $(diff "$1.$x_" "$2.$x_" | head -5)"
	done
}

n=0
for set in $sets bad-later bad-first missing; do
	case $set in
	ok) files=$inputs ;;
	anchors) files="--allow-unrelated $(find "$ANCHORS/kineto/hta/trace_filter" \
		"$ANCHORS/kineto/tracelens" -name '*.json.gz' 2>/dev/null | sort | head -4)" ;;
	bad-later) files="rank0.json rank1.json bad2.json rank3.json bad3.json" ;;
	bad-first) files="rank0.json cut.json.gz rank1.json bad2.json" ;;
	missing) files="rank0.json rank1.json nothing.json rank3.json" ;;
	esac
	for cmd in "report" "report --format json" "gaps" "flame"; do
		run one "$GPUPROF" $cmd --threads 1 $files
		for t in 2 4; do
			run many "$GPUPROF" $cmd --threads $t $files
			same one many "$set: $cmd --threads $t"
			n=$((n + 1))
		done
		case $set in
		ok | anchors)
			[ "$(cat one.rc)" = 0 ] || fail "$set: $cmd: exit $(cat one.rc): $(cat one.err)"
			[ -s one.out ] || fail "$set: $cmd: no output"
			;;
		*) [ "$(cat one.rc)" = 1 ] || fail "$set: $cmd: exit $(cat one.rc), want 1" ;;
		esac
	done
	case $set in
	bad-later)
		grep -qx 'gpuprof: error: bad2.json: line [0-9]* (byte [0-9]*): "dur" must be a number' \
			one.err || fail "bad-later: $(cat one.err)"
		;;
	bad-first)
		grep -q '^gpuprof: error: cut.json.gz: ' one.err || fail "bad-first: $(cat one.err)"
		;;
	missing)
		grep -q '^gpuprof: error: nothing.json: ' one.err || fail "missing: $(cat one.err)"
		;;
	esac
done
echo "$n comparisons" >&2

# The inputs are not all one trace: each rank is a process of the model.
"$GPUPROF" report --format json --threads 2 $inputs >all.json || fail "report"
"$GPUPROF" report --format json --threads 2 rank0.json >one.json || fail "report rank0"
cmp -s all.json one.json && fail "five ranks report as one"

# The workers do run with several threads and several Kineto inputs, and not otherwise.
GPUPROF_LOG=debug "$GPUPROF" gaps --threads 2 $inputs >/dev/null 2>err || fail "gaps"
grep -q '\[import/ahead\] 5 Kineto inputs converted on 2 worker threads' err ||
	fail "no workers: $(grep -c . err) lines"
GPUPROF_LOG=debug "$GPUPROF" gaps --threads 1 $inputs >/dev/null 2>err || fail "gaps"
grep -q 'import/ahead' err && fail "workers with --threads 1"
GPUPROF_LOG=debug "$GPUPROF" gaps --threads 4 rank0.json >/dev/null 2>err || fail "gaps"
grep -q 'import/ahead' err && fail "workers for one input"
exit 0
