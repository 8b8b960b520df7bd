# kineto-replicate.py - a large PyTorch profiler trace made of one real one.
#
# usage: python3 tests/bench/kineto-replicate.py IN.json[.gz] N OUT.json.gz
#
# Writes OUT: IN's top-level keys as they are, and its traceEvents N times
# over, copy k with every "ts" moved k * SPAN microseconds later (SPAN: the
# trace's span, rounded up to the next second, so the copies follow one
# another as steps would) and every "correlation", "External id" and flow
# "id" raised by k * IDS (IDS: a power of ten above the largest such id), so
# launches still pair with their own kernels. The events are copied as text:
# only those numbers change, so each copy reads as its original does.
# Timestamps move by a whole number of microseconds: their fractions (the
# nanoseconds) stay as written.
import gzip, json, re, sys

src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
opener = gzip.open if open(src, "rb").read(2) == b"\x1f\x8b" else open
with opener(src, "rb") as f:
    text = f.read().decode("utf-8")

key = re.search(r'"traceEvents"\s*:\s*\[', text)
if not key:
    sys.exit("kineto-replicate: %s: no traceEvents array" % src)
dec = json.JSONDecoder()
events, end = dec.raw_decode(text, key.end() - 1)
body = text[key.end():end - 1].rstrip()

t0 = min((e["ts"] for e in events if isinstance(e.get("ts"), (int, float))), default=0)
t1 = max((e["ts"] + (e.get("dur") or 0) for e in events if isinstance(e.get("ts"), (int, float))),
         default=0)
span = (int(t1 - t0) // 1000000 + 1) * 1000000
top = 0
for e in events:
    for k in ("id",):
        if isinstance(e.get(k), int):
            top = max(top, e[k])
    a = e.get("args")
    if isinstance(a, dict):
        for k in ("correlation", "External id"):
            if isinstance(a.get(k), int):
                top = max(top, a[k])
ids = 10 ** len(str(top))

num = re.compile(r'("(?:ts|correlation|External id|id)"\s*:\s*)(-?\d+)')


def copy(k):
    if k == 0:
        return body

    def shift(m):
        name = m.group(1)
        v = int(m.group(2))
        v += k * span if name.startswith('"ts"') else k * ids
        return name + str(v)
    return num.sub(shift, body)


with gzip.open(dst, "wb", compresslevel=6) as out:
    out.write(text[:key.end()].encode("utf-8"))
    for k in range(n):
        if k:
            out.write(b",")
        out.write(copy(k).encode("utf-8"))
    out.write(b"\n  ]" + text[end:].encode("utf-8"))
print("kineto-replicate: %s x %d: %d events, span %d us, ids + %d per copy" %
      (src, n, len(events) * n, span, ids))
