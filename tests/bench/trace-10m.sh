# trace-10m.sh - sourced by the benchmarks of ten million events
# (bench-threads.sh, bench-scaling.sh, bench-vs.sh): sets $trace to the
# generated trace (tracegen --steps 1000 --kernels 2500 --devices 2:
# 10,027,821 events), written once with $TRACEGEN into $TMPDIR (default
# /tmp) and kept there for the next run; exits when it cannot be written.
trace=${TMPDIR:-/tmp}/gpuprof-bench-threads-10m.gpz
if [ ! -s "$trace" ]; then
	"$TRACEGEN" --steps 1000 --kernels 2500 --devices 2 -o "$trace.tmp" >/dev/null &&
		mv "$trace.tmp" "$trace" || exit 1
fi
