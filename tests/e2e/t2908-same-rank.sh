#!/bin/sh
# Two traces naming the same rank are two runs, not one: every command that
# reads them as one model refuses them with both files named unless
# --allow-unrelated says they belong together (the job report, whose
# summaries carry no pid, only when the traces name their host). The ranks of one
# job, two profiling windows of one process, and a file given twice (a
# warning of its own) are still read.
. "$TOP/tests/e2e/lib.sh"

# kineto SEED RANK BASE_NS PID: a small PyTorch-profiler trace of one rank of a 2-rank job
kineto() {
	awk -v seed="$1" -v rank="$2" -v base="$3" -v pid="$4" 'BEGIN {
		srand(seed);
		printf "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": %d, \"world_size\": 2},\n", rank;
		printf "\"traceEvents\": [\n";
		printf "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"python\"}},\n", pid;
		t = 1000;
		for (s = 0; s < 4; s++) {
			printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": %d, \"tid\": 7, \"ts\": %d, \"dur\": 900},\n", s, pid, t;
			for (k = 0; k < 10; k++) {
				c = s * 100 + k + 1;
				d = 3 + int(rand() * 20);
				printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": 7, \"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}},\n", pid, t + k * 20 + 1, c;
				printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}},\n", k % 3, t + k * 20 + 5, d, c;
			}
			t += 1000;
		}
		printf "{\"ph\": \"i\", \"name\": \"end\", \"pid\": %d, \"tid\": 7, \"ts\": %d, \"s\": \"t\"}\n", pid, t;
		printf "],\n\"baseTimeNanoseconds\": %s}\n", base;
	}'
}

mkdir a b
kineto 1 0 1700000000000000000 100 >a/rank0.json && kineto 2 1 1700000000000001000 101 >a/rank1.json &&
	kineto 3 0 1700000000600000000 200 >b/rank0.json &&
	kineto 4 0 1700000000300000000 100 >window2.json || fail "writing the traces"

# one job's two ranks: read
expect_rc 0 "$GPUPROF" report a/rank0.json a/rank1.json
expect_rc 0 "$GPUPROF" report --job a/rank0.json a/rank1.json
# a second run's rank 0 beside the first run's: refused, in one line naming both
for cmd in "report" "comm" "critical-path"; do
	# shellcheck disable=SC2086
	expect_rc 1 "$GPUPROF" $cmd a/rank0.json a/rank1.json b/rank0.json
	[ ! -s out ] || fail "$cmd: output despite the refusal"
	[ "$(cat err)" = "gpuprof: error: 'a/rank0.json' and 'b/rank0.json' are not one run: both are rank 0; give --allow-unrelated to analyse them together" ] ||
		fail "$cmd: $(cat err)"
	# shellcheck disable=SC2086
	expect_rc 0 "$GPUPROF" $cmd --allow-unrelated a/rank0.json a/rank1.json b/rank0.json
done
# the job report's summaries carry no pid: traces naming no host (Kineto's) are not
# told apart by rank there
expect_rc 0 "$GPUPROF" report --job a/rank0.json a/rank1.json b/rank0.json
# a second profiling window of rank 0's process (its pid, no host named): one run
expect_rc 0 "$GPUPROF" report a/rank0.json a/rank1.json window2.json
grep -q "not one run" err && fail "a second window refused: $(cat err)"
# the same file under another name is a duplicate, said as such, not a second rank 0
cp a/rank0.json again.json
expect_rc 0 "$GPUPROF" report a/rank0.json a/rank1.json again.json
grep -q "not one run" err && fail "a copy refused as another run: $(cat err)"
exit 0
