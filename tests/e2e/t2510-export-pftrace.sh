#!/bin/sh
# gpuprof export --perfetto OUT.pftrace: Perfetto's protobuf format. The file is
# read back packet by packet with protobuf-c's decoder (tests/tools/pftrace-dump.c,
# which also checks the structure: declared tracks, interned names, flows, paired
# slices) and every event is checked against the trace itself (gpuprof dump):
# counts per kind, exact times and durations, names and arguments. The file is
# at most a third of the JSON export of the same trace, on generated traces and on every
# anchor (the ratios are printed). Packets go in compressed_packets (zlib), which the
# reader inflates.
. "$TOP/tests/e2e/lib.sh"

pfdump=$BUILD/tests/pftrace-dump # tests/tools/pftrace-dump.c
[ -x "$pfdump" ] || fail "missing $pfdump (build first)"

cat >check.py <<'PY'
import json, re, sys

events_path, info_path, dump_path = sys.argv[1], sys.argv[2], sys.argv[3]
tracks, slices, instants, counters = {}, [], [], []
for line in open(events_path):
    w = line.rstrip("\n").split(" ", 4)
    if w[0] == "track":
        m = re.match(r'track (\d+) parent=(\d+) pid=(-?\d+) tid=(-?\d+) counter=(\d) name="(.*)"$',
                     line.rstrip("\n"))
        tracks[int(m[1])] = dict(parent=int(m[2]), pid=int(m[3]), tid=int(m[4]),
                                 counter=m[5] == "1", name=m[6])
    elif w[0] == "slice":
        m = re.match(r'slice (\d+) (\d+) (\d+) cat=(\S*) name="(.*)" flows=(\S*) ends=(\S*) (\{.*\})$',
                     line.rstrip("\n"))
        slices.append(dict(track=int(m[1]), ts=int(m[2]), dur=int(m[3]), cat=m[4], name=m[5],
                           flows=[int(x) for x in m[6].split(",") if x],
                           ends=[int(x) for x in m[7].split(",") if x], args=json.loads(m[8])))
    elif w[0] == "instant":
        instants.append(line)
    elif w[0] == "counter":
        counters.append([int(x) for x in w[1:4]])

info = json.load(open(info_path))["files"][0]
t0 = info["first_ns"]
recs = {}
for line in open(dump_path):
    r = json.loads(line)
    recs.setdefault(r["kind"], []).append(r)
strings = {}

bycat = {}
for s in slices:
    bycat.setdefault(s["cat"], []).append(s)
    assert s["track"] in tracks, s
# Counts per kind: every kernel, copy, set, API call and NVTX range is there once.
assert len(bycat.get("kernel", [])) == len(recs["kernel"]), "kernels"
assert len(bycat.get("memcpy", [])) == len(recs["memcpy"]), "copies"
assert len(bycat.get("memset", [])) == len(recs["memset"]), "sets"
napi = len(bycat.get("cuda_runtime", [])) + len(bycat.get("cuda_driver", []))
assert napi == len(recs["api"]), (napi, len(recs["api"]))
ranges = [r for r in recs["nvtx"] if r["type"] in (1, 2)]
marks = [r for r in recs["nvtx"] if r["type"] == 3]
assert len(bycat.get("nvtx", [])) == len(ranges), (len(bycat.get("nvtx", [])), len(ranges))
assert len(instants) == len(marks), (len(instants), len(marks))

# Exact times and durations in ns, names and arguments, by correlation id.
def check(cat_list, kind, name_of):
    by = {r["correlation"]: r for r in recs[kind]}
    n = 0
    for cat in cat_list:
        for s in bycat.get(cat, []):
            r = by[s["args"]["correlation"]]
            assert s["ts"] == r["start"] - t0, (s, r)
            assert s["dur"] == r["end"] - r["start"], (s, r)
            if name_of:
                assert s["name"] == name_of(r), (s["name"], r)
            n += 1
    return n
assert check(["cuda_runtime", "cuda_driver"], "api", lambda r: r["name"]) == len(recs["api"])
assert check(["kernel"], "kernel", None) == len(recs["kernel"])
for s in bycat["kernel"]:
    assert re.fullmatch(r"\d+x\d+x\d+", s["args"]["grid"]), s
    assert {"stream", "device", "block", "registers"} <= s["args"].keys(), s
    assert tracks[s["track"]]["name"] == "Stream %d" % s["args"]["stream"], s
# NVTX ranges: the same start and duration multiset as the trace.
got = sorted((s["ts"], s["dur"], s["name"]) for s in bycat["nvtx"])
want = sorted((r["start"] - t0, r["end"] - r["start"], r["message"]) for r in ranges)
assert got == want, (got[:3], want[:3])

# Flows: every GPU op with a launching API call ends a flow one API slice starts.
starts = {f: s for s in slices for f in s["flows"]}
launched = 0
for cat in ("kernel", "memcpy", "memset"):
    for s in bycat.get(cat, []):
        for f in s["ends"]:
            a = starts[f]
            assert a["cat"].startswith("cuda_"), a
            assert a["args"]["correlation"] == s["args"]["correlation"], (a, s)
            launched += 1
assert launched == len(starts), (launched, len(starts))
assert launched > 0

# Loss counters: two points per track at the trace's ends; "records lost" holds the
# total, and each cause with losses has its own track, a cause without none.
lost = {}
for tr, ts, v in counters:
    assert tracks[tr]["counter"], tr
    assert ts in (0, info["last_ns"] - t0), ts
    lost.setdefault(tracks[tr]["name"], []).append(v)
assert lost["records lost"] == [sum(info["losses"].values())] * 2, lost
for cause, n in info["losses"].items():
    if n:
        assert lost["records lost: " + cause.replace("_", "-")] == [n, n], (cause, lost)
    else:
        assert "records lost: " + cause.replace("_", "-") not in lost, (cause, lost)
assert len(lost) == 1 + sum(1 for n in info["losses"].values() if n), lost
# Every GPU of the trace is a process track named as in the JSON export.
gpus = [t for t in tracks.values() if t["name"].startswith("GPU ")]
assert len(gpus) == len(info["devices"]), gpus
print("ok", len(slices), "slices", {k: len(v) for k, v in bycat.items()})
PY

"$TRACEGEN" --seed 7 --steps 3 --kernels 20 --copies 3 --devices 2 --streams 3 --nvtx-depth 2 \
	--all-kinds -o a.gpz >/dev/null || fail "tracegen"
expect_rc 0 "$GPUPROF" export --perfetto a.pftrace a.gpz
expect_rc 0 "$GPUPROF" export --perfetto a.json a.gpz
expect_rc 0 "$pfdump" a.pftrace
mv out events.txt
expect_rc 0 "$GPUPROF" info --json a.gpz
mv out info.json
expect_rc 0 "$GPUPROF" dump --json a.gpz
mv out dump.json
python3 check.py events.txt info.json dump.json >out 2>&1 || { cat out; fail "a.pftrace"; }

# At most a third of the JSON export of the same trace.
size_ok() { # PFTRACE JSON
	p=$(wc -c <"$1") j=$(wc -c <"$2")
	[ $((p * 3)) -le "$j" ] || fail "$1 is $p bytes, more than a third of $2 ($j bytes)"
}
size_ok a.pftrace a.json

# The format: by the name's extension, or --perfetto-format whatever the name.
od -An -tx1 -N1 a.pftrace | grep -q 0a || fail "a.pftrace does not start with a packet"
head -c 1 a.json | grep -q '{' || fail "a.json is not JSON"
expect_rc 0 "$GPUPROF" export --perfetto b.json --perfetto-format proto a.gpz
cmp -s b.json a.pftrace || fail "--perfetto-format proto b.json differs from a.pftrace"
expect_rc 0 "$GPUPROF" export --perfetto b.pftrace --perfetto-format json a.gpz
cmp -s b.pftrace a.json || fail "--perfetto-format json b.pftrace differs from a.json"
expect_rc 0 "$GPUPROF" export --perfetto c.perfetto-trace a.gpz
cmp -s c.perfetto-trace a.pftrace || fail ".perfetto-trace is not the protobuf format"
expect_rc 2 "$GPUPROF" export --perfetto d.pftrace --perfetto-format xml a.gpz
grep -q "perfetto-format must be proto or json, not 'xml'" err || fail "$(cat err)"
[ ! -e d.pftrace ] || fail "a usage error wrote d.pftrace"
expect_rc 0 "$GPUPROF" export --perfetto-format proto --perfetto - a.gpz
cmp -s out a.pftrace || fail "--perfetto - (proto) differs from a.pftrace"

# An existing file needs --force; an unwritable path fails and leaves nothing.
expect_rc 1 "$GPUPROF" export --perfetto a.pftrace a.gpz
grep -q "already exists" err || fail "$(cat err)"
expect_rc 1 "$GPUPROF" export --perfetto nodir/x.pftrace a.gpz
grep -q "nodir/x.pftrace: cannot create: No such file" err || fail "$(cat err)"

# Every real trace (PyTorch profiler and nsys): the structure holds, the packets are
# compressed, and the file is at most a third of the JSON; the ratio is printed.
if have_anchors kineto nsys; then
	find "$ANCHORS" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) \
		! -path '*/hta_reference/*' | sort >anchors.txt
	[ "$(wc -l <anchors.txt)" -ge 10 ] || fail "too few anchors: $(cat anchors.txt)"
	anchor_sweep <anchors.txt >swept.txt
	while read -r k; do
		rm -f k.pftrace k.json
		expect_rc 0 "$GPUPROF" export --perfetto k.pftrace "$k"
		expect_rc 0 "$GPUPROF" export --perfetto k.json "$k"
		expect_rc 0 "$pfdump" k.pftrace
		grep -q '^slice ' out || fail "no slice in the export of $k"
		grep -q '^compressed [1-9]' out || fail "no compressed packet in the export of $k"
		p=$(wc -c <k.pftrace) j=$(wc -c <k.json)
		echo "ratio $(awk "BEGIN { printf \"%.3f\", $p / $j }") $p $j ${k#"$ANCHORS"/}"
		size_ok k.pftrace k.json
	done <swept.txt
fi
exit 0
