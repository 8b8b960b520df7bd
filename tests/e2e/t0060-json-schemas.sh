#!/bin/sh
# Every command's JSON, on generated traces and on every anchor, validates against its
# published JSON Schema (docs/schema/, draft 2020-12): a key the schema does not name
# fails (additionalProperties false), and so does a key that is not lower snake_case,
# whatever the schema says (docs/json.md).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/json-outputs.sh"

# The validator: python3 on PATH, else the system's (where scripts/deps.sh installs
# python3-jsonschema when the one on PATH is another interpreter).
PYV=python3
python3 -c 'import jsonschema' 2>/dev/null || PYV=/usr/bin/python3
if ! "$PYV" -c 'import jsonschema' 2>/dev/null; then
	[ "${CI:-}" = true ] && fail "python3 cannot import jsonschema (python3-jsonschema)"
	echo "skip: python3 cannot import jsonschema (python3-jsonschema)"
	exit 77
fi

mkdir -p j g r s
"$TRACEGEN" --seed 5 --steps 4 --kernels 24 --copies 2 --devices 2 --gap-ns 3000000 \
	--all-kinds -o g/a.gpz >/dev/null || fail "tracegen a"
"$TRACEGEN" --seed 7 --steps 3 --kernels 16 --copies 1 --devices 1 -o g/b.gpz >/dev/null ||
	fail "tracegen b"
# ranks with NCCL, one late (a straggler); PyTorch allocator events (memory, leaks)
"$TRACEGEN" --nccl --ranks 4 --steps 3 --straggler 2 --nccl-late 500000 -o 'r/r%r.gpz' \
	>/dev/null || fail "tracegen --nccl"
python3 "$TOP/tests/tools/gen-kineto-memory.py" g/m.json || fail "gen-kineto-memory"
json_outputs j gen-a g/a.gpz full
json_outputs j gen-b g/b.gpz full
json_outputs j gen-m g/m.json full
json_outputs j gen-r r full
"$GPUPROF" diff --format json g/a.gpz -- g/b.gpz >j/gen-ab.diff.json 2>/dev/null
[ $? -le 3 ] || fail "diff a -- b"
"$GPUPROF" report --job --format json r/*.gpz >j/gen.job.json 2>/dev/null || fail "report --job"
# a job with a slow GPU (kernels slower than their peers')
"$TRACEGEN" --nccl --ranks 8 --steps 3 --slow-rank 5 --slowdown 1.5 -o 's/r%r.gpz' >/dev/null ||
	fail "tracegen --slow-rank"
"$GPUPROF" report --job --format json s/*.gpz >j/gen-slow.job.json 2>/dev/null ||
	fail "report --job, a slow GPU"
"$GPUPROF" comm --job --format json r/*.gpz >j/gen.comm-job.json 2>/dev/null || fail "comm --job"
# a job with a file that is not a trace; a trace whose chunks are damaged
head -c 4000 /dev/zero >r/r9.gpz
"$GPUPROF" report --job --format json r/*.gpz >j/gen-bad.job.json 2>/dev/null
[ $? -le 1 ] || fail "report --job with a bad file"
"$GPUPROF" info --format json "$TOP/tests/corpus/bad-chunk-crc.gpz" >j/corrupt.info.json 2>/dev/null
[ $? -le 1 ] || fail "info on a damaged trace"
"$GPUPROF" devices --format json >j/devices.json || fail "devices"
# the HTML page's data: a gpuprof-html document around the report's
"$GPUPROF" report -o g/a.html g/a.gpz 2>/dev/null || fail "report -o a.html"
python3 - g/a.html >j/gen-a.html.json <<'PY' || fail "no data in the HTML page"
import re, sys
print(re.search(r'id="gp-data"[^>]*>(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
PY

n=0
if have_anchors kineto nsys; then
	find "$ANCHORS" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) |
		sort | anchor_sweep >anchors.txt
	while read -r f; do
		n=$((n + 1))
		json_outputs j "anchor$n" "$f"
	done <anchors.txt
	[ "$n" -gt 0 ] || fail "no anchor read under $ANCHORS"
	# two runs of one program that differ: kernels that changed, came or went
	d=$ANCHORS/kineto/hta/trace_diff
	if [ -e "$d/control/control.json.gz" ] && anchor_swept "$d/control/control.json.gz"; then
		"$GPUPROF" diff --format json "$d/control/control.json.gz" -- "$d/test/test.json.gz" \
			>j/anchor-diff.diff.json 2>/dev/null
		[ $? -le 3 ] || fail "diff of trace_diff's control and test"
	fi
fi

"$PYV" - "$TOP/docs/schema" j/* <<'PY' || fail "JSON outputs do not match docs/schema/"
import json, os, re, sys
from jsonschema import Draft202012Validator

sdir, files = sys.argv[1], sys.argv[2:]
schemas = {}
for f in os.listdir(sdir):
    s = json.load(open(os.path.join(sdir, f)))
    Draft202012Validator.check_schema(s)
    schemas[f[:-len(".schema.json")]] = Draft202012Validator(s)
snake = re.compile(r"[a-z][a-z0-9_]*\Z")
bad, used, docs = [], set(), 0

def keys(x, path, f):
    if isinstance(x, dict):
        for k, v in x.items():
            if not snake.match(k):
                bad.append(f"{f}: {path}: key {k!r} is not lower snake_case")
            keys(v, f"{path}.{k}", f)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            keys(v, f"{path}[{i}]", f)

for f in files:
    text = open(f).read()
    if not text.strip():
        bad.append(f"{f}: empty")
        continue
    ds = [json.loads(l) for l in text.splitlines()] if f.endswith(".jsonl") else [json.loads(text)]
    for d in ds:
        docs += 1
        name = "gpuprof-dump" if f.endswith(".jsonl") else d.get("schema", "?").split("/")[0]
        if name not in schemas:
            bad.append(f"{f}: no schema {name!r} in docs/schema/")
            break
        used.add(name)
        keys(d, "$", f)
        for e in list(schemas[name].iter_errors(d))[:3]:
            bad.append(f"{f}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
        if name != "gpuprof-dump" and not d["schema"].startswith(name + "/"):
            bad.append(f"{f}: schema {d['schema']!r}")
unused = sorted(set(schemas) - used)
if unused:
    bad.append(f"schemas no output was checked against: {unused}")
for b in bad[:40]:
    print(b)
print(f"{docs} documents from {len(files)} files, {len(used)} schemas: {len(bad)} problems")
sys.exit(1 if bad else 0)
PY
