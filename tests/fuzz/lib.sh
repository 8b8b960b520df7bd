# lib.sh - runs a libFuzzer target and reports it in one line (sourced by run-fuzz*.sh).
#
# fuzz_run NAME BIN SECONDS DICT CRASHES LOG CORPUS SEEDS
#   Fuzzes for SECONDS with the corpus and seed folders, keeps any crashing
#   input in CRASHES/, writes libFuzzer's output to LOG, prints
#   "NAME: N executions, C crashes in S s" and returns non-zero on a crash,
#   leak, out-of-memory or timeout.
fuzz_run() {
	name=$1 bin=$2 secs=$3 dict=$4 crashes=$5 log=$6 corpus=$7 seeds=$8

	# Count only what this run leaves behind.
	rm -f "$crashes"/crash-* "$crashes"/leak-* "$crashes"/oom-* "$crashes"/timeout-*
	# halt_on_error: the targets are built with recoverable UBSan; make it fatal.
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0}
	start=$(date +%s)
	"$bin" -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 -timeout=30 \
		-error_exitcode=77 -print_final_stats=1 -dict="$dict" \
		-artifact_prefix="$crashes/" "$corpus" "$seeds" > "$log" 2>&1
	rc=$?
	end=$(date +%s)

	execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ -z "$execs" ]; then
		execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	fi
	if [ -z "$execs" ]; then
		execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	fi
	ncrash=$(find "$crashes" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' \
		-o -name 'timeout-*' \) | wc -l)
	if [ "$rc" -ne 0 ] && [ "$ncrash" -eq 0 ]; then
		ncrash=1
	fi
	if [ "$rc" -ne 0 ]; then
		tail -n 60 "$log"
		echo "$name: the target failed (exit $rc); input kept in $crashes/, log in $log"
	fi
	echo "$name: ${execs:-0} executions, $ncrash crashes in $((end - start)) s"
	[ "$rc" -eq 0 ]
}
