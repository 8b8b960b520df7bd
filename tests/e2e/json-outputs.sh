# json-outputs.sh - sourced by t0060: json_outputs DIR NAME TRACE [full] writes the JSON
# of every command on TRACE into DIR/NAME.COMMAND.json ('full': the variants with every
# optional section too). Also how docs/schema/ was drafted (scripts/json-schema-gen.py).

cat >roof.rules <<'R'
pattern="gemm|kernel" flops="2 * grid * 128 * 128 * 64" bytes="grid * 128 * 64 * 4"
R

json_outputs() {
	jo_d=$1 jo_n=$2 jo_t=$3
	for jo_c in report gaps critical-path ops memory breakdown comm mfu occupancy launches; do
		"$GPUPROF" "$jo_c" --format json "$jo_t" >"$jo_d/$jo_n.$jo_c.json" 2>/dev/null ||
			fail "$jo_c --format json $jo_t: exit $?"
	done
	"$GPUPROF" stats --format json --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,cuda_api_sum,nvtx_sum,nvtx_gpu_proj_sum,cuda_gpu_trace \
		"$jo_t" 2>/dev/null | head -c 2000000 >"$jo_d/$jo_n.stats.json"
	# a cut document would not parse: keep the whole one only when it is small
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$jo_d/$jo_n.stats.json" \
		2>/dev/null || "$GPUPROF" stats --format json "$jo_t" >"$jo_d/$jo_n.stats.json"
	if [ -f "$jo_t" ]; then # info and dump read files, not folders
		"$GPUPROF" info --format json "$jo_t" >"$jo_d/$jo_n.info.json" 2>/dev/null ||
			fail "info --format json $jo_t: exit $?"
		"$GPUPROF" dump --format json "$jo_t" 2>/dev/null | head -n 3000 \
			>"$jo_d/$jo_n.dump.jsonl"
	fi
	"$GPUPROF" diff --format json "$jo_t" -- "$jo_t" >"$jo_d/$jo_n.diff.json" 2>/dev/null
	[ $? -le 3 ] || fail "diff --format json $jo_t"
	[ "${4:-}" = full ] || return 0
	jo_o="--flops-per-step 5e11 --bytes-per-step 2e8 --roofline roof.rules"
	# shellcheck disable=SC2086
	"$GPUPROF" report --format json $jo_o "$jo_t" >"$jo_d/$jo_n.report-mfu.json" ||
		fail "report $jo_o"
	# shellcheck disable=SC2086
	"$GPUPROF" mfu --format json $jo_o "$jo_t" >"$jo_d/$jo_n.mfu-opts.json" || fail "mfu $jo_o"
	"$GPUPROF" gaps --format json --per-step --top all --min-gap 0 "$jo_t" \
		>"$jo_d/$jo_n.gaps-steps.json" || fail "gaps --per-step"
	"$GPUPROF" breakdown --format json --compat hta "$jo_t" >"$jo_d/$jo_n.breakdown-hta.json" ||
		fail "breakdown --compat hta"
	"$GPUPROF" stats --format json --timeunit us "$jo_t" >"$jo_d/$jo_n.stats-us.json" ||
		fail "stats --timeunit us"
	"$GPUPROF" critical-path --format json --top all "$jo_t" >"$jo_d/$jo_n.critpath-all.json" ||
		fail "critical-path --top all"
}
