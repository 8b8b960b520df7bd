#!/bin/sh
# gpuprof comm on a folder (every trace in one model, each process a rank)
# and gpuprof comm --job (each trace alone, analyze/job.c) match collectives
# with the same code (analyze/coll-match.c), so they must tell the same
# story: the same collectives matched and keyed the same way, each rank's
# arrivals, waits and lateness, the straggler verdict and its margin, the
# clock check and why nothing matched; the report's straggler finding says
# what comm says.
#
# Generated (tracegen --nccl, four ranks, rank 2 400 us late or no
# straggler): NCCL records with sequence numbers, without them (matched by
# order per communicator, arrival at the GPU start), no NCCL records at all
# (kernels by name, matched by order per stream), and clocks misaligned by
# 5 ms per rank (the AllReduce's ends no longer coincide: nothing matched,
# said why).
#
# Real traces:
# - HTA's trace_filter job, two sampled ranks (Kineto, no NCCL sequence
#   numbers, all-to-all kernels matched by order per stream): most matched
#   kernels end 14 ms apart where one collective ends at once on every rank,
#   so the two samples do not cover the same collectives (or their clocks are
#   off): a careful engineer says nothing about stragglers, and both paths
#   say "unknown" with that reason.
# - The nsys exports of a two-GPU run (mfu_2gpu_before/after: one export,
#   two processes on one session clock, NCCL known only as point-to-point
#   NVTX ranges, so the SendRecv kernels of each all-to-all are matched by
#   order per stream). Read independently from the SQLite here: the n-th
#   NCCL kernel of each process ends within tens of microseconds of the
#   other's (median 22 us before, 10 us after), so the clocks agree and
#   arrivals can be compared. Before, pid 145 starts last at 22 of 33
#   all-to-alls by a median 195 us: a straggler. After, pid 149 is last at
#   16 of 31 but by a median 14 us: noise, nothing material. comm alone can
#   say this (the job path sees one file, one rank).
. "$TOP/tests/e2e/lib.sh"

agree() { # NAME TRACE...: comm and comm --job compared; writes NAME.comm.json, NAME.job.json
	name_=$1
	shift
	expect_rc 0 "$GPUPROF" comm --format json "$@"
	cp out "$name_.comm.json"
	expect_rc 0 "$GPUPROF" comm --job --format json "$@"
	cp out "$name_.job.json"
	python3 - "$name_.comm.json" "$name_.job.json" <<'PY' || fail "comm and comm --job disagree on $name_"
import json, sys
c = json.load(open(sys.argv[1])); j = json.load(open(sys.argv[2]))
s, k = c["summary"], j["skew"]
assert s["matched"] == k["matched"] and s["unmatched"] == k["unmatched"], (s, k)
assert s["mismatched"] == k["mismatched"], (s, k)
assert (s["matched_by"] or "sequence number") == k["matched_by"] or not s["matched"], (s, k)
assert s["skew_max_ns"] == k["max"], (s, k)
cc = s["clock_check"]
assert (cc["ends_checked"], cc["ends_far"], cc["end_spread_median_ns"], cc["clocks_agree"]) == \
    (k["ends_checked"], k["ends_far"], k["end_spread_median_ns"], k["clocks_agree"]), (cc, k)
v = j["straggler"]
assert s["straggler"]["verdict"] == v["verdict"], (s["straggler"], v)
if v["verdict"] == "found":
    assert s["straggler_rank"] == v["rank"] and s["straggler"]["margin_ns"] == v["margin_ns"], (s, v)
elif v["verdict"] == "unknown":
    assert s["straggler"]["why"] == v["why"] and s["straggler_rank"] is None, (s, v)
else:
    assert s["straggler_rank"] is None, s
mine = {r["rank"]: (r["matched"], r["last"], r["wait_caused_ns"], r["waited_ns"],
                    r["mean_lateness_ns"]) for r in c["ranks"]}
job = {r["rank"]: (r["matched"], r["last"], r["caused_wait_ns"], r["waited_ns"],
                   r["mean_lateness_ns"]) for r in j["collective_ranks"] if r["matched"]}
assert mine == job, (mine, job)
PY
}

for v in seq noseq names; do
	case $v in
	seq) opt=--nccl ;;
	noseq) opt=--nccl-no-seq ;;
	names) opt=--nccl-names ;;
	esac
	mkdir "$v-s" "$v-n"
	"$TRACEGEN" $opt --ranks 4 --steps 4 --straggler 2 -o "$v-s/r%r.gpz" >/dev/null || fail tracegen
	"$TRACEGEN" $opt --ranks 4 --steps 4 -o "$v-n/r%r.gpz" >/dev/null || fail tracegen
	agree "$v-s" "$v-s"
	agree "$v-n" "$v-n"
	expect_rc 0 "$GPUPROF" report --format json "$v-s"
	cp out "$v-s.report.json"
	python3 - "$v" <<'PY' || fail "known answers ($v)"
import json, sys
v = sys.argv[1]
by = {"seq": "sequence number", "noseq": "order per communicator", "names": "order per stream"}[v]
a = json.load(open(v + "-s.comm.json"))["summary"]; b = json.load(open(v + "-n.comm.json"))["summary"]
# rank 2 arrives 400 us late, 370 us after rank 3, at each of 4 AllReduces
assert a["matched"] == 4 and a["matched_by"] == by and a["skew_max_ns"] == 400000, a
assert a["straggler"] == {"verdict": "found", "margin_ns": 370000} and a["straggler_rank"] == 2, a
# no straggler: rank 3 is last, 10 us ahead of rank 2: not material
assert b["straggler"] == {"verdict": "nothing material"} and b["skew_max_ns"] == 30000, b
assert a["clock_check"]["ends_checked"] == 4 and a["clock_check"]["ends_far"] == 0, a
r = json.load(open(v + "-s.report.json"))
f = [x for x in r["findings"] + r["findings_summary"].get("minor", []) if x["category"] == "straggler"]
assert len(f) == 1 and f[0]["title"] == "Straggler: rank 2" and f[0]["count"] == 4, f
PY
done

# every rank's clock 5 ms further off than the last: the ends 5-15 ms apart
mkdir off
"$TRACEGEN" --nccl --clock-off 5000000 --ranks 4 --steps 4 --straggler 2 -o 'off/r%r.gpz' \
	>/dev/null || fail tracegen
agree off off
expect_rc 0 "$GPUPROF" comm off
grep -q '^Straggler: unknown (the clocks disagree: 4 of 4 collectives matched by sequence' out ||
	fail "clock check: $(cat out)"
grep -q '^Across ranks: none: the clocks disagree' out || fail "empty table: $(cat out)"
expect_rc 0 "$GPUPROF" comm --format markdown --table ranks off
grep -q '^### Across ranks: none: the clocks disagree' out || fail "markdown: $(cat out)"
expect_rc 0 "$GPUPROF" report --format json off
python3 -c '
import json
r = json.load(open("out"))
assert not [x for x in r["findings"] + r["findings_summary"].get("minor", []) if x["category"] == "straggler"]
' || fail "report claims a straggler on misaligned clocks"

have_anchors kineto/hta/trace_filter nsys/mfu_2gpu_before.sqlite nsys/mfu_2gpu_after.sqlite ||
	exit 0
agree tf "$ANCHORS"/kineto/hta/trace_filter/sampled_rank-0.json.gz \
	"$ANCHORS"/kineto/hta/trace_filter/sampled_rank-1.json.gz
python3 - <<'PY' || fail "trace_filter"
import json
s = json.load(open("tf.comm.json"))["summary"]
assert s["straggler"]["verdict"] == "unknown" and s["straggler"]["why"].startswith("the clocks disagree"), s
assert s["clock_check"]["ends_far"] * 2 > s["clock_check"]["ends_checked"] > 0, s
PY

for b in before after; do
	db=$ANCHORS/nsys/mfu_2gpu_$b.sqlite
	expect_rc 0 "$GPUPROF" comm --format json "$db"
	cp out "$b.json"
	expect_rc 0 "$GPUPROF" report --format json "$db"
	cp out "$b.report.json"
	python3 - "$db" "$b" <<'PY' || fail "$db"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); b = sys.argv[2]
rows = db.execute("""select k.globalPid >> 24 & 16777215, k.start, k.end from CUPTI_ACTIVITY_KIND_KERNEL k
    join StringIds s on s.id = k.demangledName where lower(s.value) like '%nccl%' order by k.start""").fetchall()
per = {}
for pid, s, e in rows:
    per.setdefault(pid, []).append((s, e))
pids = sorted(per)
assert len(pids) == 2 and len(per[pids[0]]) == len(per[pids[1]]), {p: len(v) for p, v in per.items()}
n = len(per[pids[0]])
last = {p: [] for p in pids}; spread = []
for i in range(n):
    (a0, e0), (a1, e1) = per[pids[0]][i], per[pids[1]][i]
    last[pids[0] if a0 > a1 else pids[1]].append(abs(a0 - a1))
    spread.append(abs(e0 - e1))
med = lambda v: sorted(v)[(len(v) - 1) // 2]
best = max(pids, key=lambda p: len(last[p]))
d = json.load(open(b + ".json")); s = d["summary"]
assert s["matched"] == n and s["matched_by"] == "order per stream", s
assert s["clock_check"]["ends_checked"] == n and s["clock_check"]["ends_far"] == 0, s
assert s["clock_check"]["end_spread_median_ns"] == med(spread) < 100000, (s, med(spread))
rk = {r["process"]: r for r in d["ranks"]}
assert rk["pid %d" % best]["last"] == len(last[best]) and all(r["rank"] is None for r in d["ranks"]), rk
found = 2 * len(last[best]) >= n and med(last[best]) >= 50000
assert s["straggler"]["verdict"] == ("found" if found else "nothing material"), (s, len(last[best]), med(last[best]))
assert found == (b == "before"), (b, found)
r = json.load(open(b + ".report.json"))
f = [x for x in r["findings"] + r["findings_summary"].get("minor", []) if x["category"] == "straggler"]
if found:
    assert s["straggler"]["margin_ns"] == med(last[best]), s
    assert len(f) == 1 and f[0]["title"] == "Straggler: pid %d" % best and f[0]["count"] == len(last[best]), f
else:
    assert not f, f
PY
done
exit 0
