#!/bin/sh
# GEMM shapes recorded by cuBLAS/cuBLASLt interposition (library preloaded)
# over the fake libcublas/libcublasLt, whose kernels run at 400 TFLOP/s:
# one cpu_op range per successful call and none for the refused one, none
# for the cublasLtMatmul that cublasGemmStridedBatchedEx runs inside; each
# tied to its launch by a CUPTI external correlation id; `gpuprof ops`
# gives every call its exact 2·m·n·k·batch FLOPs and its own kernels'
# time, and MFU needs nothing typed; a forked child records only its own
# calls; GPUPROF_KINDS=-gemm records none; output is the untraced run's.
. "$TOP/tests/fakecuda/e2e-lib.sh"
APP=$B/tests/gemm-app
[ -x "$APP" ] || { echo "gemm-app not built"; exit 77; }
LIBS="$FAKE:$FAKE/cublas"
# under AddressSanitizer its runtime must come first in the preload list
asan=$(ldd "$APP" 2>/dev/null | awk '/libasan/ { print $3 }')

env LD_LIBRARY_PATH="$LIBS" "$APP" 2 >plain.txt 2>&1 || fail "untraced run: $?"
rec() { # rec TRACE [VAR=VALUE...]
	t=$1
	shift
	env LD_LIBRARY_PATH="$LIBS" LD_PRELOAD="${asan:+$asan:}$LIB" CUDA_INJECTION64_PATH="$LIB" \
		NVTX_INJECTION64_PATH="$LIB" GPUPROF_OUTPUT="$PWD/$t" "$@" "$APP" 2 >"$t.out" 2>"$t.err" ||
		fail "$t: exit $?: $(cat "$t.err")"
	[ -s "$t.err" ] && fail "$t: stderr: $(cat "$t.err")"
	cmp -s plain.txt "$t.out" || fail "$t: output differs when traced"
}
rec g.gpz
grep -q '^cublasGemmEx 7$' g.gpz.out || fail "the refused call did not say CUBLAS_STATUS_INVALID_VALUE"
calls=$(sed -n 's/^calls //p' g.gpz.out)
[ "$calls" = 16 ] || fail "calls: $calls"

"$GPUPROF" dump --kind nvtx g.gpz | grep 'domain="cpu_op"' >ops.txt || fail "no cpu_op ranges"
[ "$(wc -l <ops.txt)" = "$calls" ] || fail "$(wc -l <ops.txt) ranges for $calls calls"
for f in cublasGemmEx:8 cublasGemmStridedBatchedEx:2 cublasSgemm_v2:2 cublasHgemm:2 cublasLtMatmul:2; do
	n=$(grep -c "message=\"${f%:*}\"" ops.txt)
	[ "$n" = "${f#*:}" ] || fail "${f%:*}: $n ranges"
done
grep -q 'message="cublasGemmEx".*D=\[\[1024,256\],\[256,512\],\[1024,512\].*\\"N\\",\\"T\\"' ops.txt ||
	fail "GemmEx N,T shapes: $(head -n 1 ops.txt)"

# every range's payload is the external id CUPTI tied to one launch
sed -n 's/.* payload=\([0-9]*\) .*/\1/p' ops.txt | sort -n >ids.txt
"$GPUPROF" dump --kind extcorr g.gpz | sed -n 's/^extcorr external_kind=5 external_id=\([0-9]*\) .*/\1/p' |
	sort -n >ext.txt
[ "$(sort -u ids.txt | wc -l)" = "$calls" ] || fail "external ids not distinct"
cmp -s ids.txt ext.txt || fail "external ids: ranges $(tr '\n' ' ' <ids.txt), CUPTI $(tr '\n' ' ' <ext.txt)"

# FLOPs per call, by hand: 2·m·n·k·batch
f_nt=$((2 * 1024 * 512 * 256))
f_big=$((2 * 4096 * 4096 * 1024))
f_sb=$((2 * 128 * 128 * 64 * 16))
f_s=$((2 * 512 * 512 * 512))
f_h=$((2 * 256 * 256 * 256))
f_lt=$((2 * 2048 * 1024 * 768 * 2))
total=$((2 * (3 * f_nt + f_big + f_sb + f_s + f_h + f_lt)))
"$GPUPROF" ops --format json --table inputs g.gpz >ops.json || fail "ops"
grep -q "\"gpu_ops\":$calls,\"gpu_ops_in_ops\":$calls," ops.json || fail "kernels outside the GEMMs: $(head -c 200 ops.json)"
grep -q "\"flops\":$total," ops.json || fail "total FLOPs, want $total: $(head -c 300 ops.json)"
tr '}' '\n' <ops.json >rows.txt
# row NAME SHAPE CALLS FLOPS: the call's kernels ran FLOPS / 400000 ns each (integer ns)
row() {
	line=$(grep "\"operator\":\"$1\",\"inputs\":\"D=\[$2" rows.txt) || fail "no row $1 $2"
	ns=$(($3 * ($4 / 400000)))
	gf=$(awk -v f="$4" 'BEGIN { printf "%.3f", f / 1e9 }')
	echo "$line" | grep -q "\"model\":\"gemm\",.*\"calls\":$3,\"gpu_time_ns\":$ns,.*\"gflop\":$gf," ||
		fail "$1 $2: want $3 calls, $ns ns, $gf GFLOPs: $line"
}
row cublasGemmEx '\[1024,256\]' 6 $f_nt
row cublasGemmEx '\[4096,1024\]' 2 $f_big
row cublasGemmStridedBatchedEx '\[16,128,64\]' 2 $f_sb
row cublasSgemm_v2 '\[512,512\]' 2 $f_s
row cublasHgemm '\[256,256\]' 2 $f_h
row cublasLtMatmul '\[2,2048,768\]' 2 $f_lt
# the float-output GEMM moves A and B at 2 bytes and C at 4: 83.886 MB
grep '\[4096,1024\]' rows.txt | grep -q '"data_moved_mb":83.886,' || fail "bytes of the float-output GEMM"

# MFU with nothing typed: the two "step" ranges each hold one round of GEMMs
"$GPUPROF" mfu g.gpz >mfu.txt || fail "mfu"
grep -q 'FLOPs per step from  *recorded operator shapes' mfu.txt || fail "mfu: $(cat mfu.txt)"
# in SI units in text (41943040000 -> "41.9 GFLOP"), as computed in JSON
want=$(awk -v f=$((total / 2)) 'BEGIN { g = f / 1e9; printf (g < 10 ? "%.3f GFLOP" : "%.1f GFLOP"), g }')
grep -q "model FLOPs, median step  *$want\$" mfu.txt ||
	fail "mfu: FLOPs per step, want $want: $(grep 'model FLOPs' mfu.txt)"
"$GPUPROF" mfu --format json g.gpz >mfu.json || fail "mfu --format json"
grep -q "\"model FLOPs, median step\",\"value\":\"$(awk -v f=$((total / 2)) 'BEGIN { printf "%g", f }')\"" \
	mfu.json || fail "mfu json: FLOPs per step, want $((total / 2)): $(cat mfu.json)"
# the flame graph puts each call between its range and its kernels
"$GPUPROF" flame g.gpz | grep -qx ".*;step;cublasLtMatmul;sm90_xmma_gemm_tn_[a-z0-9_]* $((2 * (f_lt / 400000)))" ||
	fail "flame: $("$GPUPROF" flame g.gpz)"

# a child forked right after the parent's calls records its own calls only;
# not under AddressSanitizer: GCC 12's does not hold its allocator across fork,
# so a child of a multi-threaded parent can deadlock in malloc (as in t1033)
if [ -z "$asan" ]; then
env LD_LIBRARY_PATH="$LIBS" LD_PRELOAD="${asan:+$asan:}$LIB" CUDA_INJECTION64_PATH="$LIB" \
	NVTX_INJECTION64_PATH="$LIB" GPUPROF_OUTPUT="$PWD/fork-%p.gpz" "$APP" 2 fork >fork.out 2>fork.err ||
	fail "fork: exit $?: $(cat fork.err)"
[ -s fork.err ] && fail "fork: stderr: $(cat fork.err)"
grep -q '^child calls 8$' fork.out || fail "fork: child: $(cat fork.out)"
n=$(for t in fork-*.gpz; do "$GPUPROF" dump --kind nvtx "$t" | grep -c 'domain="cpu_op"'; done | sort -n | tr '\n' ' ')
[ "$n" = "8 16 " ] || fail "fork: GEMM records per trace: $n (want the child's 8 and the parent's 16)"
for t in fork-*.gpz; do # each process calls from its main thread: tid = pid
	p=${t#fork-}
	"$GPUPROF" dump --kind nvtx "$t" | grep 'domain="cpu_op"' | grep -v "start_tid=${p%.gpz} " &&
		fail "fork: $t: a GEMM on another thread"
done
fi

# off by its kind: the calls pass through, nothing is recorded
rec off.gpz GPUPROF_KINDS=all,-gemm
"$GPUPROF" dump --kind nvtx off.gpz | grep -q 'cpu_op' && fail "-gemm still recorded GEMMs"
"$GPUPROF" dump --kind kernel off.gpz | grep -c '^kernel ' | grep -qx "$calls" || fail "-gemm: kernels"
"$GPUPROF" ops off.gpz | grep -q 'no CPU operators' || fail "-gemm: ops says $("$GPUPROF" ops off.gpz | head -n 3)"
exit 0
