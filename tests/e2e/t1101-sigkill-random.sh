#!/bin/sh
# SIGKILL at 100 random moments (make stress, GPUPROF_STRESS=1) or at 10 fixed
# ones 50 ms apart (make test): every kernel launched more than one flush
# period (50 ms) plus a 250 ms margin for the writer to be scheduled before
# the kill is in the trace, and the trace reads without a corrupt chunk.
# Prints the worst lag seen (docs/reliability.md).
. "$TOP/tests/fakecuda/e2e-lib.sh"

if [ "${GPUPROF_STRESS:-}" = 1 ]; then
	RUNS=${GPUPROF_KILL_RUNS:-100}
else
	RUNS=${GPUPROF_KILL_RUNS:-10}
fi
FLUSH_MS=50
MARGIN_MS=250
i=0
worst=0
total_need=0
while [ $i -lt $RUNS ]; do
	env LD_LIBRARY_PATH="$FAKE" CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" \
		GPUPROF_FLUSH_MS=$FLUSH_MS GPUPROF_OUTPUT="$PWD/k.gpz" "$LIFE" stream >k.txt 2>err.txt &
	pid=$!
	# 100 to 600 ms after the start: at random, or spread evenly over RUNS kills
	if [ "${GPUPROF_STRESS:-}" = 1 ]; then
		r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	else
		r=$((i * 500 / RUNS))
	fi
	ms=$((100 + r % 500))
	sleep "$(printf '0.%03d' $ms)"
	kill -KILL $pid
	wait $pid 2>/dev/null
	"$CHECK" stat k.gpz >stat.txt 2>&1 || fail "run $i ($ms ms): unreadable: $(cat stat.txt)"
	grep -q '^problems 0$' stat.txt || fail "run $i ($ms ms): corrupt chunks"
	have=$(sed -n 's/^kernel s //p' stat.txt)
	have=${have:-0}
	# need: kernels launched by (last report - flush - margin); lag: how far the trace trails
	set -- $(awk -v have="$have" -v gap=$(((FLUSH_MS + MARGIN_MS) * 1000000)) '
		{ n[NR] = $1; t[NR] = $2 }
		END {
			last = t[NR]; need = 0; lag = 0
			for (k = 1; k <= NR; k++) {
				if (t[k] <= last - gap) need = n[k]
				if (n[k] > have && lag == 0) lag = last - t[k]
			}
			printf "%d %d\n", need, lag / 1000000
		}' k.txt)
	[ "$have" -ge "$1" ] || fail "run $i ($ms ms): $have kernels kept, $1 launched before the kill window"
	[ "$2" -gt $worst ] && worst=$2
	total_need=$((total_need + $1))
	rm -f k.gpz
	i=$((i + 1))
done
echo "$RUNS kills: every record older than $((FLUSH_MS + MARGIN_MS)) ms kept ($total_need in all); worst lag ${worst} ms"
exit 0
