#!/bin/sh
# bench-ops.sh - gpuprof ops on a trace of about 1 M events with recorded
# shapes (docs/performance.md).
#
# usage: tests/bench/bench-ops.sh GPUPROF [OPS] [RUNS]
#
# Writes a PyTorch profiler (Kineto) JSON file with OPS CPU operators
# (default 333334), each with recorded shapes (Input Dims, Input type,
# Input Strides, Concrete Inputs; 96 unique input sets over mm, addmm,
# linear > addmm, layer norm, softmax, add, relu and an unmodelled op), one
# launch call and one kernel: 3 events per operator, about 1 M in all.
# It converts the file to .gpz once, then times `GPUPROF ops` on the .gpz
# RUNS times (default 5) and prints the median and best wall and CPU
# (user + system) times, and the same for `GPUPROF gaps` (the same model
# load, another analysis) for reference: on a shared machine the CPU time
# is the figure to compare, wall time depends on the load.
# Exit status 1 when a command failed.
set -u

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	echo "usage: $0 GPUPROF [OPS] [RUNS]" >&2
	exit 2
fi
gpuprof=$1
nops=${2:-333334}
runs=${3:-5}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-ops.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

python3 - "$nops" >"$dir/ops.json" <<'PY' || exit 1
import sys
n = int(sys.argv[1])
bf = '"c10::BFloat16"'
def shapes(i):
    k = i % 96
    m = 64 * (1 + k % 8)
    kind = k % 8
    if kind == 0:
        return "aten::mm", '[[%d,4096],[4096,4096]]' % m, '[%s,%s]' % (bf, bf), '[[4096,1],[4096,1]]', '["",""]'
    if kind == 1:
        return "aten::addmm", '[[4096],[%d,4096],[4096,1024],[],[]]' % m, '[%s,%s,%s,"Scalar","Scalar"]' % (bf, bf, bf), '[[1],[4096,1],[1024,1],[],[]]', '["","","","1","1"]'
    if kind == 2:
        return "aten::native_layer_norm", '[[%d,4096],[],[4096],[4096],[]]' % m, '[%s,"ScalarList",%s,%s,"Scalar"]' % (bf, bf, bf), '[[4096,1],[],[1],[1],[]]', '["","[4096]","","","1e-05"]'
    if kind == 3:
        return "aten::_softmax", '[[%d,32,128],[],[]]' % m, '[%s,"Scalar","Scalar"]' % bf, '[[4096,128,1],[],[]]', '["","-1","False"]'
    if kind == 4:
        return "aten::add", '[[%d,4096],[%d,4096],[]]' % (m, m), '[%s,%s,"Scalar"]' % (bf, bf), '[[4096,1],[4096,1],[]]', '["","","1"]'
    if kind == 5:
        return "aten::relu", '[[%d,4096]]' % m, '[%s]' % bf, '[[4096,1]]', '[""]'
    if kind == 6:
        return "aten::bmm", '[[8,%d,128],[8,128,%d]]' % (m, m), '[%s,%s]' % (bf, bf), '[[],[]]', '["",""]'
    return "vendor::fused_thing", '[[%d,4096]]' % m, '[%s]' % bf, '[[4096,1]]', '[""]'
w = sys.stdout.write
w('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3",'
  '"totalGlobalMem":85024112640,"computeMajor":9,"computeMinor":0,"numSms":132}],'
  '"traceEvents":[\n')
t = 1000
for i in range(n):
    name, d, ty, s, c = shapes(i)
    sep = ",\n" if i else ""
    w('%s{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":1,"ts":%d,"dur":20,'
      '"args":{"External id":%d,"Input Dims":%s,"Input type":%s,"Input Strides":%s,'
      '"Concrete Inputs":%s}},\n' % (sep, name, t, i + 1, d, ty, s, c))
    w('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,'
      '"dur":5,"args":{"correlation":%d}},\n' % (t + 2, i + 1))
    w('{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":12,'
      '"args":{"device":0,"stream":7,"correlation":%d,"grid":[1,1,1],"block":[128,1,1]}}'
      % (i % 96, t + 8, i + 1))
    t += 25
w('\n]}\n')
PY
"$gpuprof" convert --quiet "$dir/ops.json" "$dir/ops.gpz" || exit 1
events=$((nops * 3))
echo "gpuprof ops on $events events ($nops operators with shapes), $runs runs; load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for cmd in ops gaps; do
	python3 - "$gpuprof" "$cmd" "$dir/ops.gpz" "$runs" <<'PY' || exit 1
import resource, subprocess, sys, time
g, cmd, path, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ts, cpu = [], []
for _ in range(runs):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([g, cmd, path], stdout=subprocess.DEVNULL)
    ts.append(time.perf_counter() - t0)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    if r.returncode:
        sys.exit(1)
ts.sort()
cpu.sort()
print("  gpuprof %-4s wall median %.3f s, best %.3f s; CPU (user + sys) median %.3f s, best %.3f s"
      % (cmd, ts[len(ts) // 2], ts[0], cpu[len(cpu) // 2], cpu[0]))
PY
done
