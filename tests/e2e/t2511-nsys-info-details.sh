#!/bin/sh
# What real nsys exports and Kineto traces do not hold is said as such, not
# printed as zeros or blanks, and one export is one clock:
#   - a single nsys export whose two processes share its session clock gets
#     no clock-anchor warning (two separate exports without anchors still do);
#   - `info` of an export without device or version tables names the devices
#     its GPU records use and says the versions are unknown (no "devices
#     none", no blank "gpuprof " or "CUPTI 0"), and a blank command line gives
#     the executable;
#   - profiler overhead is the time under overhead records, which overlap
#     across threads: never more than the trace's span;
#   - a Kineto trace without memory bandwidth says "unknown", not "0.0 GB/s";
#   - host allocations of a few bytes are no headline beside the GPU's;
#   - gap evidence shortened to fit keeps whole words, never cut inside one;
#   - copies timed in a few whole microseconds are never "slow for its kind".
. "$TOP/tests/e2e/lib.sh"

need_anchors nsys/mfu_2gpu_before.sqlite nsys/mock.sqlite nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite \
	kineto/hta/trace_diff/test kineto/hta/df_index_resolver
N=$ANCHORS/nsys
M2=$N/mfu_2gpu_before.sqlite

expect_rc 0 "$GPUPROF" report "$M2"
grep -q 'no clock anchor' out && fail "clock-anchor warning on one export"
grep -q '^Warnings' out || fail "the other warnings are gone"
expect_rc 0 "$GPUPROF" report --format json "$N/mock.sqlite" "$N/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
grep -q 'some traces have no clock anchor' out || fail "two exports: no clock-anchor warning"

expect_rc 0 "$GPUPROF" info "$M2"
grep -q '^  devices     0, 1: named by GPU records; the trace holds no device properties$' out ||
	fail "devices: $(grep devices out)"
grep -q '^  versions    unknown (none in the trace)$' out || fail "versions: $(grep versions out)"
grep -q '^  process     pid 145 on modal: python3$' out ||
	fail "process: $(grep process out)"
expect_rc 0 "$GPUPROF" info "$N/mock.sqlite"
grep -q '^  process     pid 91186 on DESKTOP-KBEMEQS: /.*python$' out || fail "exe: $(grep process out)"
expect_rc 0 "$GPUPROF" info --json "$N/mock.sqlite" "$M2"
python3 - <<'PY' || fail "overhead"
import json
m, f = json.load(open("out"))["files"]
# 25 PROFILER_OVERHEAD rows and 6 CUPTI ones, some on several threads at once
assert m["overhead_union_ns"] < m["overhead_ns"], m
assert 0 < m["overhead_union_ns"] <= m["span_ns"], m
assert f["devices"] == [] and f["work_devices"] == [0, 1], f
PY

expect_rc 0 "$GPUPROF" info "$ANCHORS"/kineto/hta/trace_diff/test/*.json.gz
grep -q 'GB/s' out && fail "a bandwidth the trace does not hold: $(grep GB/s out)"
grep -q '^  devices     0: Tesla V100-SXM2-16GB, cc 7.0, 80 SMs, 15.78 GiB, memory bandwidth unknown$' out ||
	fail "kineto devices: $(grep -A1 devices out)"

expect_rc 0 "$GPUPROF" memory "$ANCHORS"/kineto/hta/df_index_resolver/*.json.gz
grep -q '^Peak cuda:1: ' out || fail "memory headline: $(head -3 out)"
grep -q '^Peak cpu' out && fail "host bytes as a headline: $(grep '^Peak cpu' out)"
grep -q '^cpu  ' out || fail "the host pool left the table"

# gap evidence: each shortened cell is the full evidence's words, cut between them
expect_rc 0 "$GPUPROF" report --format json "$M2"
cp out gaps.json
expect_rc 0 "$GPUPROF" report "$M2"
# (rows its first column does not tell apart are numbered when the table folds)
awk '/^Longest gaps/ {on = 1; next} on && /^$/ && seen {exit}
	on && /^ *([0-9]+  )?p1/ {seen = 1; sub(/^ *[0-9]+  /, ""); print}' out >cut.txt
[ -s cut.txt ] || fail "no longest-gaps rows"
python3 - <<'PY' || fail "evidence cut inside a word"
import json
full = [g["evidence"] for g in json.load(open("gaps.json"))["longest_gaps"]]
cells = [l for l in open("cut.txt", encoding="utf-8").read().splitlines() if "\u2026" in l]
assert cells, "no shortened evidence to check"
for line in cells:
    left, right = line.split("\u2026", 1)
    assert right.split("  ")[0] == "", line  # nothing of the evidence after the ellipsis
    # what is kept is whole words of some gap's evidence, cut where a space was
    assert any(left.endswith(e[:i]) and e[i] == " " and e[i - 1] != " "
               for e in full for i in range(1, len(e))), line
PY

# copies: none timed in a few whole microseconds is called slow for its kind
for f in "$ANCHORS"/kineto/hta/*/*.json.gz; do
	"$GPUPROF" mfu "$f" >out 2>err || continue
	if grep 'slow for its kind' out | grep -Eq ' [1-9]\.0 µs '; then
		fail "$f: $(grep 'slow for its kind' out | head -3)"
	fi
done
exit 0
