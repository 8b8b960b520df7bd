#!/bin/sh
# bench-import.sh - import figures on the real anchors (docs/dev/import-figures.md).
#
# usage: tests/bench/bench-import.sh GPUPROF [RUNS]
#
# For every Kineto anchor (shared/anchors/kineto/**/*.json.gz and *.json)
# and every Nsight Systems anchor (shared/anchors/nsys/*.sqlite) it runs
# `GPUPROF convert IN OUT.gpz` RUNS times (default 3) and prints one
# Markdown table row:
#
#   events     kernel+memcpy+memset+api+nvtx records (`gpuprof info --json`)
#   src B      the input's size: the .json.gz as stored (a plain .json is
#              gzipped at level 6 for the figure), or the .sqlite
#   gpz B      the converted file's size
#   gpz/src    their ratio; for Kineto, PASS when at most 1/3, else MISS
#   sqlite B   the same events as an Nsight Systems SQLite export: for a
#              Kineto anchor `GPUPROF export --sqlite` of the converted
#              file (the nsys-compatible subset, docs/export.md), for an
#              nsys anchor the .sqlite itself; and gpz/sqlite
#   B/ev       bytes per event of the source and of the .gpz
#   ev/s       events per second of the whole convert command (wall, median)
#   peak       the convert's peak RSS (max of the runs) in MiB, and per event
#
# Peak RSS is /usr/bin/time -f %M where that exists, else the
# getrusage(RUSAGE_CHILDREN) maximum of a fresh python3 parent per run
# (BENCH_IMPORT_RUSAGE=1 forces the latter). Either counts the memory of the
# process that forked the child (a fork and exec keep the larger high-water
# mark), so the script also prints what the method reads for /bin/true.
# The shared anchors are looked for in $TOP/../shared (beside the checkout); with
# neither the script says so and exits 0. The exit status is 1 when a
# convert failed; a MISS is reported, not an error (files of a few KiB miss
# on the .gpz's fixed header, index and trailer).
set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 GPUPROF [RUNS]" >&2
	exit 2
fi
gpuprof=$1
runs=${2:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $gpuprof in /*) ;; *) gpuprof=$(pwd)/$gpuprof ;; esac

shared=
for d in "$top/../shared"; do
	if [ -d "$d/anchors" ]; then
		shared=$(cd "$d" && pwd)
		break
	fi
done
if [ -z "$shared" ]; then
	echo "bench-import: no shared anchors ($top/../shared): skipped"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "bench-import: python3 is needed" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-import.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

python3 - "$gpuprof" "$shared/anchors" "$tmp" "$runs" <<'PYEOF'
import gzip, json, os, statistics, subprocess, sys, time

gpuprof, anchors, tmp, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
use_time = os.access("/usr/bin/time", os.X_OK) and not os.environ.get("BENCH_IMPORT_RUSAGE")
KINDS = ("kernel", "memcpy", "memset", "api", "nvtx")

def inputs():
    out = []
    for root, _, files in os.walk(os.path.join(anchors, "kineto")):
        for f in files:
            if f.endswith(".json.gz") or f.endswith(".json"):
                out.append(("kineto", os.path.join(root, f)))
    nsys = os.path.join(anchors, "nsys")
    if os.path.isdir(nsys):
        for f in os.listdir(nsys):
            if f.endswith(".sqlite"):
                out.append(("nsys", os.path.join(nsys, f)))
    return sorted(out)

def convert(src, dst, argv=None):
    """One timed convert: (wall seconds, peak KiB, error text or None)."""
    argv = argv or [gpuprof, "convert", src, dst]
    if os.path.exists(dst):
        os.unlink(dst)
    if use_time:
        tf = os.path.join(tmp, "time.out")
        cmd = ["/usr/bin/time", "-f", "%M", "-o", tf] + argv
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
        with open(tf) as f:
            lines = [l for l in f.read().split("\n") if l.strip().isdigit()]
        kib = int(lines[-1]) if lines else 0
    else:
        code = ("import resource, subprocess, sys, time\n"
                "t0 = time.perf_counter()\n"
                "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
                "w = time.perf_counter() - t0\n"
                "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
                "print(p.returncode, w, r.ru_maxrss, file=sys.stderr)\n"
                "sys.exit(p.returncode)\n")
        p = subprocess.run([sys.executable, "-c", code] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        last = p.stderr.decode(errors="replace").strip().split("\n")[-1].split()
        wall, kib = float(last[1]), int(last[2])
    if p.returncode != 0:
        return wall, kib, p.stderr.decode(errors="replace").strip().split("\n")[0]
    return wall, kib, None

def events(gpz):
    p = subprocess.run([gpuprof, "info", "--json", gpz], stdout=subprocess.PIPE)
    doc = json.loads(p.stdout)
    rec = doc["files"][0]["records"]
    return sum(int(rec.get(k, 0)) for k in KINDS)

def src_size(fmt, path):
    if fmt == "kineto" and not path.endswith(".gz"):
        with open(path, "rb") as f:
            return len(gzip.compress(f.read(), 6)), " (gzipped here)"
    return os.path.getsize(path), ""

def per(n, ev):
    return "%.1f" % (n / ev) if ev else "-"

def sqlite_size(fmt, path, gpz):
    if fmt == "nsys":
        return os.path.getsize(path)
    out = os.path.join(tmp, "out.sqlite")
    p = subprocess.run([gpuprof, "export", "--force", "--sqlite", out, gpz],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return None
    return os.path.getsize(out)

print("| anchor | fmt | events | src B | gpz B | gpz/src | <=1/3 | sqlite B | gpz/sqlite "
      "| src B/ev | gpz B/ev | import ev/s | peak MiB | peak B/ev |")
print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: "
      "| ---: |")
bad = misses = 0
tot = {"kineto": [0, 0, 0], "nsys": [0, 0, 0]}
for fmt, path in inputs():
    name = os.path.relpath(path, anchors)
    dst = os.path.join(tmp, "out.gpz")
    walls, peak, err = [], 0, None
    for _ in range(runs):
        wall, kib, err = convert(path, dst)
        if err:
            break
        walls.append(wall)
        peak = max(peak, kib)
    if err:
        print("| %s | %s | convert failed: %s |" % (name, fmt, err.replace("|", "/")))
        bad += 1
        continue
    ev = events(dst)
    src, note = src_size(fmt, path)
    gpz = os.path.getsize(dst)
    ratio = gpz / src
    if fmt == "kineto":
        verdict = "PASS" if ratio <= 1 / 3 else "MISS"
        misses += verdict == "MISS"
        tot["kineto"][0] += src
        tot["kineto"][1] += gpz
    else:
        verdict = "n/a"
        tot["nsys"][0] += src
        tot["nsys"][1] += gpz
    med = statistics.median(walls)
    sq = sqlite_size(fmt, path, dst)
    if sq is None:
        print("| %s | %s | export --sqlite failed |" % (name, fmt))
        bad += 1
        continue
    tot[fmt][2] += sq
    print("| %s%s | %s | %d | %d | %d | %.3f | %s | %d | %.3f | %s | %s | %s | %.1f | %s |" % (
        name, note, fmt, ev, src, gpz, ratio, verdict, sq, gpz / sq, per(src, ev),
        per(gpz, ev), "%.0f" % (ev / med) if ev else "-", peak / 1024, per(peak * 1024, ev)))
for fmt, (s, g, q) in tot.items():
    if s:
        print("\n%s total: source %d B, gpz %d B, gpz/src %.3f; sqlite %d B, gpz/sqlite %.3f" % (
            fmt, s, g, g / s, q, g / q))
floor = convert(None, os.path.join(tmp, "none"), ["/bin/true"])[1]
print("\nthe peak RSS method reads %.1f MiB for /bin/true: figures near it are that floor" % (
    floor / 1024))
print("\nbench-import: %d runs each, median wall; peak RSS via %s; %d failed, %d MISS" % (
    runs, "/usr/bin/time -f %M" if use_time else "getrusage(RUSAGE_CHILDREN)", bad, misses))
sys.exit(1 if bad else 0)
PYEOF
