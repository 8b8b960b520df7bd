#!/bin/sh
# tests/gpu/run.sh - the recording check on a machine with an NVIDIA GPU.
#
# Builds gpuprof and the CUDA samples, records every sample with `gpuprof
# record`, checks each trace against the ground truth the sample printed
# (kernels by name, copies and bytes, memsets, NVTX ranges, API calls,
# launch configurations, no drops, a complete file; train-step's cuBLAS GEMMs
# recorded with their shapes under --preload), measures the recording
# overhead (each sample traced and untraced, REPS repetitions, the median
# ratio of the measured loop and of the whole run), records a small PyTorch
# training step when torch with CUDA is importable and compares its kernel
# count with torch.profiler's for the same steps, and prints one summary.
# Under 8 minutes on one GPU. Exit status: 0 all checks pass, 1 a check
# failed, 77 no GPU.
#
# usage: tests/gpu/run.sh            (O= names the build folder, REPS= the repetitions,
#                                    PREBUILT=1 uses O as built elsewhere: no make)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-build}
REPS=${REPS:-5}
B=$top/$O
GPUPROF=$B/gpuprof
CHECK=$B/tests/check-trace
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-gpu-XXXXXX")
log=$work/log.txt
summary=$work/summary.txt
passed=0
failed=0
T0=$(date +%s)

say() { printf '%s\n' "$*" | tee -a "$log"; }
pass() { passed=$((passed + 1)); say "  ok   $*"; }
fail() { failed=$((failed + 1)); say "  FAIL $*"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "tests/gpu/run.sh: no NVIDIA GPU here (nvidia-smi -L failed): nothing to check"
	exit 77
fi
say "== GPU: $(nvidia-smi -L | head -n 1)"
say "== driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)"
say "== work folder: $work"

# ------------------------------------------------------------------ build
if [ "${PREBUILT:-0}" = 1 ] && [ -x "$GPUPROF" ] && [ -x "$B/samples/vector-add" ]; then
	say "== using the build in $O as it is (PREBUILT=1)"
else
	say "== building (make all samples)"
	if ! make -C "$top" -j"$(nproc)" O="$O" all samples >"$work/build.txt" 2>&1; then
		tail -n 30 "$work/build.txt"
		echo "tests/gpu/run.sh: build failed"
		exit 1
	fi
fi
if ! "$GPUPROF" record --help >/dev/null 2>&1; then
	echo "tests/gpu/run.sh: $GPUPROF has no record command"
	exit 1
fi

# sum of "kernel NAME N" lines whose NAME contains $2
kernel_count() {
	awk -v s="$2" '$1 == "kernel" && index($2, s) { n += $NF } END { print n + 0 }' "$1"
}
stat_val() { # file key...: the value after the key
	f=$1
	k=$2
	shift 2
	for w in "$@"; do k="$k $w"; done
	sed -n "s/^$k //p" "$f" | head -n 1
}

# ------------------------------------------------------ traces vs ground truth
check_sample() { # name gt-file stat-file
	name=$1 gt=$2 st=$3
	[ "$(stat_val "$st" footer)" = yes ] && pass "$name: trace complete (footer)" ||
		fail "$name: trace has no footer"
	if grep -q '^loss ' "$st"; then
		fail "$name: records lost: $(grep '^loss ' "$st" | tr '\n' ' ')"
	else
		pass "$name: nothing lost"
	fi
	while read -r tag what a b c d e f; do
		[ "$tag" = GT ] || continue
		case $what in
		kernel)
			got=$(kernel_count "$st" "$a")
			[ "$got" = "$b" ] && pass "$name: kernel $a x$b" ||
				fail "$name: kernel $a: $got, expected $b" ;;
		kernels_min)
			got=$(stat_val "$st" records kernel)
			[ "${got:-0}" -ge "$a" ] && pass "$name: $got kernels >= $a" ||
				fail "$name: ${got:-0} kernels, expected at least $a" ;;
		memcpy)
			got=$(stat_val "$st" records memcpy)
			bytes=$(stat_val "$st" memcpy_bytes)
			[ "${got:-0}" = "$a" ] && [ "$bytes" = "$b" ] &&
				pass "$name: $a copies, $b bytes" ||
				fail "$name: ${got:-0} copies of $bytes bytes, expected $a of $b" ;;
		memset)
			got=$(stat_val "$st" records memset)
			[ "${got:-0}" = "$a" ] && pass "$name: $a memsets" ||
				fail "$name: ${got:-0} memsets, expected $a" ;;
		memset_min)
			got=$(stat_val "$st" records memset)
			[ "${got:-0}" -ge "$a" ] && pass "$name: ${got:-0} memsets >= $a" ||
				fail "$name: ${got:-0} memsets, expected at least $a" ;;
		nvtx)
			got=$(stat_val "$st" nvtx "$a")
			[ "${got:-0}" = "$b" ] && pass "$name: NVTX $a x$b" ||
				fail "$name: NVTX $a: ${got:-0}, expected $b" ;;
		api)
			got=$(stat_val "$st" api "$a")
			[ "${got:-0}" -ge "$b" ] && pass "$name: $a x${got:-0} (>= $b)" ||
				fail "$name: $a: ${got:-0} calls, expected at least $b" ;;
		config)
			line=$(awk -v s="$a" '$1 == "config" && index($2, s) { print; exit }' "$st")
			set -- $line
			# CUPTI reports registers as allocated, in units of 8 per thread
			# (cudaFuncGetAttributes' 12 is recorded as 16 on sm_90)
			[ $# -ge 5 ] && [ "$5" = $(((d + 7) / 8 * 8)) ] && d=$5
			if [ $# -ge 7 ] && [ "$3" = "$b" ] && [ "$4" = "$c" ] && [ "$5" = "$d" ] &&
				[ "$6" = "$e" ] && [ "$7" = "$f" ]; then
				pass "$name: $a launched as grid $b block $c, $d regs, smem $e+$f"
			else
				fail "$name: $a config '${line#config }', expected grid $b block $c regs $d smem $e+$f"
			fi ;;
		nccl) # NCCL operations of function $a recorded (the profiler plugin: source 1)
			got=$("$GPUPROF" dump --kind nccl "$work/$name.gpz" 2>/dev/null |
				grep -c "^nccl .*func=\"$a\".* source=1 ")
			[ "${got:-0}" = "$b" ] && pass "$name: NCCL $a x$b through the plugin" ||
				fail "$name: NCCL $a: ${got:-0} recorded by the plugin, expected $b" ;;
		*) ;;
		esac
	done <"$gt"
}

loop_ms() { sed -n 's/^GT loop_ms //p' "$1" | head -n 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }

samples="vector-add train-step occupancy"
# the NCCL sample is built when the toolkit has NCCL
[ -x "$B/samples/nccl-allreduce" ] && samples="$samples nccl-allreduce"
for s in $samples; do
	bin=$B/samples/$s
	say "== $s"
	if ! timeout 120 "$bin" >"$work/$s.untraced.txt" 2>"$work/$s.untraced.err"; then
		fail "$s: does not run untraced: $(tail -n 2 "$work/$s.untraced.err")"
		continue
	fi
	if ! timeout 180 "$GPUPROF" record -o "$work/$s.gpz" -- "$bin" >"$work/$s.traced.txt" \
		2>"$work/$s.traced.err"; then
		fail "$s: traced run failed: $(tail -n 2 "$work/$s.traced.err")"
		continue
	fi
	grep '^gpuprof:' "$work/$s.traced.err" | sed 's/^/  /' | tee -a "$log"
	"$CHECK" stat "$work/$s.gpz" >"$work/$s.stat" || {
		fail "$s: trace unreadable"
		continue
	}
	check_sample "$s" "$work/$s.traced.txt" "$work/$s.stat"
	if [ "$s" = train-step ]; then
		# GEMM shapes through cuBLAS interposition (record --preload): one operator per
		# cublasSgemm with 2·d³ FLOPs, and the GEMM kernels under it
		ng=$(sed -n 's/^train-step: [0-9]* steps, \([0-9]*\) GEMMs of \([0-9]*\)x.*/\1/p' "$work/$s.traced.txt")
		dim=$(sed -n 's/^train-step: [0-9]* steps, \([0-9]*\) GEMMs of \([0-9]*\)x.*/\2/p' "$work/$s.traced.txt")
		if timeout 180 "$GPUPROF" record --preload -o "$work/$s.gemm.gpz" -- "$bin" \
			>"$work/$s.gemm.txt" 2>"$work/$s.gemm.err"; then
			got=$("$GPUPROF" dump --kind nvtx "$work/$s.gemm.gpz" |
				grep -c 'domain="cpu_op" message="cublasSgemm_v2"')
			"$GPUPROF" ops --format json "$work/$s.gemm.gpz" >"$work/$s.ops.json" 2>&1
			flops=$(sed -n 's/.*"totals":{[^}]*"flops":\([0-9]*\),.*/\1/p' "$work/$s.ops.json")
			inops=$(sed -n 's/.*"gpu_ops_in_ops":\([0-9]*\),.*/\1/p' "$work/$s.ops.json")
			want=$(awk -v n="${ng:-0}" -v d="${dim:-0}" 'BEGIN { printf "%.0f", n * 2 * d * d * d }')
			if [ "${got:-0}" = "${ng:-x}" ] && [ "${flops:-0}" = "$want" ] && [ "${inops:-0}" -ge "$got" ]; then
				pass "$s: $got cublasSgemm calls recorded with their shapes, $flops FLOPs, $inops GPU ops under them"
			else
				fail "$s: cuBLAS shapes: ${got:-0} calls of ${ng:-?}, FLOPs ${flops:-?} (want $want), GPU ops under them ${inops:-?}"
			fi
		else
			fail "$s: record --preload failed: $(tail -n 2 "$work/$s.gemm.err")"
		fi
	fi
	if [ "$s" = nccl-allreduce ]; then
		# NCCL kernels tied to their operations through CUSTOM2 external correlation
		"$GPUPROF" comm --format json "$work/$s.gpz" >"$work/$s.comm.json" 2>&1
		linked=$(sed -n 's/.*"by_record":\([0-9]*\).*/\1/p' "$work/$s.comm.json")
		[ "${linked:-0}" -gt 0 ] && pass "$s: $linked NCCL kernels linked to their operations" ||
			fail "$s: no NCCL kernel linked to an operation ($(head -c 300 "$work/$s.comm.json"))"
	fi
done

# ------------------------------------------------------------ overhead
say "== overhead: $REPS runs each, untraced and traced, alternating"
printf '%-12s %10s %10s %9s %9s %9s\n' sample "loop ms" traced "loop +%" "wall ms" "wall +%" >"$summary"
for s in $samples; do
	bin=$B/samples/$s
	[ -x "$bin" ] || continue
	: >"$work/$s.loop"
	: >"$work/$s.wall"
	: >"$work/$s.u"
	: >"$work/$s.wu"
	: >"$work/$s.t"
	i=0
	while [ $i -lt "$REPS" ]; do
		w0=$(now_ms)
		timeout 120 "$bin" >"$work/o.txt" 2>/dev/null || break
		w1=$(now_ms)
		u=$(loop_ms "$work/o.txt")
		timeout 180 "$GPUPROF" record -o "$work/ovh.gpz" -- "$bin" >"$work/o.txt" 2>/dev/null ||
			break
		w2=$(now_ms)
		t=$(loop_ms "$work/o.txt")
		echo "$u" >>"$work/$s.u"
		echo "$t" >>"$work/$s.t"
		awk -v u="$u" -v t="$t" 'BEGIN { printf "%.3f\n", (t / u - 1) * 100 }' >>"$work/$s.loop"
		awk -v u=$((w1 - w0)) -v t=$((w2 - w1)) 'BEGIN { printf "%.3f\n", (t / u - 1) * 100 }' \
			>>"$work/$s.wall"
		echo "$((w1 - w0))" >>"$work/$s.wu"
		i=$((i + 1))
	done
	lu=$(median <"$work/$s.u")
	lt=$(median <"$work/$s.t")
	lo=$(median <"$work/$s.loop")
	wo=$(median <"$work/$s.wall")
	wu=$(median <"$work/$s.wu" 2>/dev/null)
	printf '%-12s %10s %10s %9s %9s %9s\n' "$s" "$lu" "$lt" "$lo" "$wu" "$wo" >>"$summary"
	if [ "$s" = train-step ] && [ -n "$lo" ]; then
		if awk -v o="$lo" 'BEGIN { exit !(o <= 2.0) }'; then
			pass "train-step: recording overhead $lo % of the loop (budget 2 %)"
		else
			fail "train-step: recording overhead $lo % of the loop (budget 2 %)"
		fi
	fi
done

# ------------------------------------------------------------ PyTorch
torch_line="PyTorch: not checked (python3 -c 'import torch' failed or no CUDA in torch)"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	say "== PyTorch training step"
	py=$top/samples/torch-step.py
	if timeout 300 python3 "$py" --torch-profiler >"$work/torch.prof.txt" 2>"$work/torch.prof.err" &&
		timeout 300 "$GPUPROF" record -o "$work/torch.gpz" --capture nvtx:measured -- \
			python3 "$py" >"$work/torch.traced.txt" 2>"$work/torch.traced.err"; then
		"$CHECK" stat "$work/torch.gpz" >"$work/torch.stat"
		tk=$(sed -n 's/^GT torch_kernels //p' "$work/torch.prof.txt")
		gk=$(stat_val "$work/torch.stat" records kernel)
		check_sample torch "$work/torch.traced.txt" "$work/torch.stat"
		if [ -n "$tk" ] && [ "${gk:-0}" = "$tk" ]; then
			pass "torch: $gk kernels, as torch.profiler counts"
		else
			fail "torch: gpuprof ${gk:-0} kernels, torch.profiler ${tk:-?}"
		fi
		torch_line="PyTorch: gpuprof ${gk:-0} kernels, torch.profiler ${tk:-?} (5 steps)"
	else
		fail "torch: a run failed: $(tail -n 3 "$work/torch.prof.err" "$work/torch.traced.err")"
	fi
fi

# ------------------------------------------------------------ flight recorder
# A PyTorch loop with one slowed step under --flight: one file, saved by the
# slow-step trigger, holding that step and the one before; its kernels are
# kernels the same run records without --flight; the report names the stall.
flight_line="flight recorder: not checked (no torch with CUDA)"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	say "== flight recorder (PyTorch, one slowed step)"
	py=$top/samples/torch-flight.py
	fdir=$work/flight
	mkdir -p "$fdir"
	if timeout 300 "$GPUPROF" record --flight -o "$fdir/f.gpz" -- python3 "$py" \
		>"$work/flight.txt" 2>"$work/flight.err" &&
		timeout 300 "$GPUPROF" record -o "$work/flight-plain.gpz" -- python3 "$py" \
			>/dev/null 2>"$work/flight-plain.err"; then
		slow=$(sed -n 's/^GT slow_step //p' "$work/flight.txt")
		set -- "$fdir"/f.flight-*.gpz
		if [ $# -eq 1 ] && [ -f "$1" ]; then
			ff=$1
			"$CHECK" stat "$ff" >"$work/flight.stat"
			"$CHECK" stat "$work/flight-plain.gpz" >"$work/flight-plain.stat"
			"$GPUPROF" report "$ff" >"$work/flight.report" 2>&1
			prev=$((slow - 1))
			if head -n 1 "$work/flight.report" | grep -q "saved on slow-step: step 'ProfilerStep#$slow'" &&
				grep -q "^nvtx ProfilerStep#$prev 1\$" "$work/flight.stat" &&
				grep -q "NVTX range 'stall'" "$work/flight.report"; then
				pass "flight: saved on ProfilerStep#$slow, holds step $prev, report names the stall"
			else
				fail "flight: $(head -n 8 "$work/flight.report")"
			fi
			missing=0
			for k in $(sed -n 's/^kernel \([^ ]*\) .*/\1/p' "$work/flight.stat"); do
				grep -q "^kernel $k " "$work/flight-plain.stat" || missing=$((missing + 1))
			done
			fk=$(stat_val "$work/flight.stat" records kernel)
			pk=$(stat_val "$work/flight-plain.stat" records kernel)
			if [ "$missing" -eq 0 ] && [ "${fk:-0}" -gt 0 ] && [ "${fk:-0}" -le "${pk:-0}" ]; then
				pass "flight: ${fk} kernels saved, all of kinds the uncaptured run has (${pk})"
			else
				fail "flight: ${fk:-0} kernels, ${missing} names not in the uncaptured run (${pk:-0})"
			fi
			flight_line="flight recorder: saved $(basename "$ff"), ${fk:-0} of ${pk:-0} kernels"
		else
			fail "flight: expected one flight file, got: $*"
		fi
	else
		fail "flight: a run failed: $(tail -n 3 "$work/flight.err" "$work/flight-plain.err")"
	fi
fi

# ------------------------------------------------------------ summary
T1=$(date +%s)
{
	echo
	echo "gpuprof GPU check: $(nvidia-smi -L | head -n 1)"
	cat "$summary"
	echo "$torch_line"
	echo "$flight_line"
	echo "checks: $passed passed, $failed failed; $((T1 - T0)) s; details in $work"
} | tee -a "$log"
[ "$failed" -eq 0 ]
