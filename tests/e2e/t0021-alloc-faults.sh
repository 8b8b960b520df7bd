#!/bin/sh
# Every allocation failure: with the Nth allocation failing (tests/tools/
# failmalloc.c, preloaded), reading a .gpz, importing Kineto JSON and an nsys
# export, building the model and rendering the report end with exit 0 (a
# failure the command does without) or exit 1 and "out of memory" on
# stderr: never a crash, a hang, another status or another message
# (tests/tools/failmalloc-sweep.sh). make test steps N with a stride to stay
# within about 30 s; GPUPROF_FAILMALLOC_FULL=1 (make test-alloc-faults)
# fails every allocation in turn, both from N on and N alone. Under
# AddressSanitizer (make check) a leak or memory error is a failure too.
. "$TOP/tests/e2e/lib.sh"

SO="$BUILD/tests/libfailmalloc.so"
[ -f "$SO" ] || fail "no $SO"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
command -v timeout >/dev/null || { echo "skip: no timeout"; exit 77; }
if ldd "$GPUPROF" | grep -q libasan; then
	export FAILMALLOC_ASAN=1 # the shim goes before the sanitizer's runtime
fi
export FAILMALLOC_SO="$SO"

"$TRACEGEN" --all-kinds --memory 5 -o t.gpz >/dev/null || fail tracegen
python3 "$TOP/tests/e2e/alloc-faults-inputs.py" || fail "alloc-faults-inputs.py"

full=${GPUPROF_FAILMALLOC_FULL:-0}
# sweep STRIDE MODE CMD...: STRIDE 1 under the full sweep.
sweep() {
	stride=$1 mode=$2
	shift 2
	[ "$full" = 1 ] && stride=1
	sh "$TOP/tests/tools/failmalloc-sweep.sh" -m "$mode" -s "$stride" -t 60 -- "$@" >sweep.out 2>&1
	rc=$?
	cat sweep.out >>sweeps
	tail -n 1 sweep.out
	[ "$rc" -eq 0 ] || { head -n 40 sweep.out; fail "allocation failures not handled: $*"; }
	oom=$(tail -n 1 sweep.out | sed -n 's/.* \([0-9]*\) oom, .*/\1/p')
	[ "${oom:-0}" -gt 0 ] || fail "no run ended out of memory: the shim failed nothing? $*"
}
: >sweeps
sweep 41 after "$GPUPROF" report --threads 1 t.gpz
sweep 53 after "$GPUPROF" report --threads 1 k.json
sweep 499 after "$GPUPROF" report --threads 1 n.sqlite
sweep 97 once "$GPUPROF" report --threads 1 t.gpz
if [ "$full" = 1 ]; then
	sweep 1 once "$GPUPROF" report --threads 1 k.json
	sweep 1 once "$GPUPROF" report --threads 1 n.sqlite
	sweep 1 after "$GPUPROF" info t.gpz
	sweep 1 after "$GPUPROF" convert k.json k.gpz
fi
echo ok
