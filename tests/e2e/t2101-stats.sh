#!/bin/sh
# gpuprof stats: every report in every format on a generated trace (golden
# files), nsys's exact CSV headers, and the summaries recomputed from the
# cuda_gpu_trace rows by an independent implementation (Python).
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 21 --steps 2 --kernels 5 --copies 2 --devices 2 --nvtx-depth 1 --all-kinds \
	-o a.gpz >/dev/null || fail "tracegen"
all=cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,cuda_api_sum,nvtx_sum
all=$all,nvtx_gpu_proj_sum,cuda_gpu_trace

# Each format: all seven reports, one after another.
for f in table csv json markdown; do
	expect_rc 0 "$GPUPROF" stats --report "$all" --format "$f" a.gpz
	[ -s err ] && fail "$f: unexpected stderr: $(cat err)"
	golden "t2101-$f" out
	cp out "all.$f"
done
# Aligned text is the default; -r repeats; md is markdown.
expect_rc 0 "$GPUPROF" stats -r cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum \
	-r cuda_api_sum,nvtx_sum -r nvtx_gpu_proj_sum,cuda_gpu_trace a.gpz
golden t2101-table out
expect_rc 0 "$GPUPROF" stats -r "$all" -f md a.gpz
golden t2101-markdown out

# Time units and kernel names.
units() { # UNIT REPORTS
	expect_rc 0 "$GPUPROF" stats --timeunit "$1" --format csv -r "$2" a.gpz
	{ echo "== $1"; cat out; } >>units
}
: >units
units usec cuda_gpu_kern_sum,nvtx_gpu_proj_sum,cuda_gpu_trace
units msec cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum
units sec cuda_api_sum,nvtx_sum
golden t2101-units units
expect_rc 0 "$GPUPROF" stats --timeunit seconds --format csv -r cuda_api_sum,nvtx_sum a.gpz
sed -n '/^== sec$/,$p' units | tail -n +2 | cmp -s - out || fail "seconds differs from sec"
: >names
for k in short mangled demangled; do
	expect_rc 0 "$GPUPROF" stats --kernel-name "$k" -r cuda_gpu_kern_sum -f csv a.gpz
	{ echo "== $k"; cat out; } >>names
done
golden t2101-names names

# Without --report: nsys's --stats=true set, in its order.
expect_rc 0 "$GPUPROF" stats a.gpz
grep '^\*\* ' out >titles
cat >want <<'T'
** NVTX Range Summary (nvtx_sum):
** CUDA API Summary (cuda_api_sum):
** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):
** CUDA GPU MemOps Summary (by Time) (cuda_gpu_mem_time_sum):
** CUDA GPU MemOps Summary (by Size) (cuda_gpu_mem_size_sum):
T
diff -u want titles || fail "default reports"

# nsys's CSV headers, exactly.
cat >headers <<'H'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation
Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation
Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range
Range,Style,Total Proj Time (ns),Total Range Time (ns),Range Instances,Proj Avg (ns),Proj Med (ns),Proj Min (ns),Proj Max (ns),Proj StdDev (ns),Total GPU Ops,Avg GPU Ops,Avg Range Lvl,Avg Num Child
Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name
H
while IFS= read -r h; do
	grep -qxF "$h" all.csv || fail "CSV header missing: $h"
done <headers
h='Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name'
grep -qxF "$h" units || fail "usec header"

# The summaries again, from the trace rows, with Python's statistics and
# SQLite's round(x, 1) (half away from zero); JSON must parse.
python3 - all.csv all.json <<'PY' || fail "summaries disagree with the trace"
import csv, io, json, sys
from decimal import Decimal, ROUND_HALF_UP, getcontext
from fractions import Fraction

getcontext().prec = 60
blocks = [b for b in open(sys.argv[1]).read().split("\n\n") if b.strip()]
tables = {}
for b in blocks:
    rows = list(csv.reader(io.StringIO(b)))
    tables[tuple(rows[0])] = rows[1:]
trace = next(r for h, r in tables.items() if h[0] == "Start (ns)")
kern = next(r for h, r in tables.items() if h[-1] == "Name" and h[2] == "Instances")
memt = next(r for h, r in tables.items() if h[-1] == "Operation" and h[0] == "Time (%)")
mems = next(r for h, r in tables.items() if h[0] == "Total (MB)")

def fixed(fr, places):
    d = Decimal(fr.numerator) / Decimal(fr.denominator)
    return format(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP), "f")

def summary(vals, scale_places):
    n, tot = len(vals), sum(vals)
    mean = Fraction(tot, n)
    srt = sorted(vals)
    med = Fraction(srt[n // 2]) if n % 2 else Fraction(srt[n // 2 - 1] + srt[n // 2], 2)
    var = sum((Fraction(v) - mean) ** 2 for v in vals) / (n - 1) if n > 1 else Fraction(0)
    sd = Fraction((Decimal(var.numerator) / Decimal(var.denominator)).sqrt())
    p, s = scale_places, Fraction(1, 10 ** scale_places)
    return (tot, n, fixed(mean * s, p + 1), fixed(med * s, p + 1), srt[0], srt[-1],
            fixed(sd * s, p + 1))

def check(rows, groups, places, pct=True):
    grand = sum(sum(v) for v in groups.values())
    want = []
    for name, vals in groups.items():
        tot, n, avg, med, mn, mx, sd = summary(vals, places)
        sc = Fraction(1, 10 ** places)
        row = [fixed(Fraction(tot) * sc, places), str(n), avg, med,
               fixed(Fraction(mn) * sc, places), fixed(Fraction(mx) * sc, places), sd, name]
        if pct:
            row = [fixed(Fraction(100 * tot, grand), 1)] + row
        want.append((-tot, n, name, row))
    want = [w[3] for w in sorted(want)]
    if want != rows:
        print("want", want, "\ngot ", rows)
        sys.exit(1)

kg, mg, sg = {}, {}, {}
for r in trace:
    dur, name, nbytes = int(r[1]), r[20], r[12]
    if name.startswith("[CUDA mem"):
        mg.setdefault(name, []).append(dur)
        sg.setdefault(name, []).append(int(Decimal(nbytes) * 1000000))
    else:
        kg.setdefault(name, []).append(dur)
check(kern, kg, 0)
check(memt, mg, 0)
check(mems, sg, 6, pct=False)
# Throughput = bytes / duration, in MB/s.
for r in trace:
    if r[12]:
        b, d = int(Decimal(r[12]) * 1000000), int(r[1])
        assert r[13] == fixed(Fraction(b * 1000, d), 3), r
# The JSON document carries the same reports.
doc = json.load(open(sys.argv[2]))
assert [x["report"] for x in doc["reports"]] == ["cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
    "cuda_gpu_mem_size_sum", "cuda_api_sum", "nvtx_sum", "nvtx_gpu_proj_sum", "cuda_gpu_trace"]
jk = doc["reports"][0]["rows"]
assert len(jk) == len(kern) and jk[0]["name"] == kern[0][8]
assert jk[0]["instances"] == int(kern[0][2])
assert len(doc["reports"][6]["rows"]) == len(trace)
assert doc["reports"][6]["rows"][0]["context"] is None
PY
exit 0
