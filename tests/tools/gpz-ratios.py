#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpz-ratios.py FILE.gpz... - per file: records, inflated payload bytes and string
bytes (+1 each) per byte of file, the ratios the reader limits (trace/FORMAT.md 4.2,
docs/reliability.md "Memory"). Reads packed (2.x) files too; no damage handling."""
import struct, sys, zlib, os
def varint(b, p):
    v = 0; s = 0
    while True:
        x = b[p]; p += 1; v |= (x & 0x7f) << s; s += 7
        if not x & 0x80: return v, p
def strbytes(raw, count):
    p = varint(raw, 0)[1]; t = 0
    for _ in range(count):
        l, p = varint(raw, p); p += l; t += l + 1
    return t
def stats(path):
    b = open(path, 'rb').read()
    hl = struct.unpack_from('<I', b, 16)[0]; off = hl
    st = dict(size=len(b), raw=0, recs=0, strb=0, chunks=0)
    def take(kind, count, raw):
        st['chunks'] += 1
        if kind == 1: st['strb'] += strbytes(raw, count)
        elif 2 <= kind <= 26: st['recs'] += count
        st['raw'] += len(raw)
    while off + 48 <= len(b):
        mg, kind, fl, count, rl, sl = struct.unpack_from('<IHHIII', b, off)
        if mg != 0x435A5047: break
        pl = b[off+48:off+48+sl]; off += 48 + sl
        raw = zlib.decompress(pl, -15) if fl & 1 else pl
        if kind == 126:
            p = 0
            for _ in range(count):
                k, p = varint(raw, p); c, p = varint(raw, p); l, p = varint(raw, p)
                _, p = varint(raw, p); _, p = varint(raw, p)
                take(k, c, raw[p:p+l]); p += l
        elif kind != 127:
            take(kind, count, raw)
    return st
rows = []
for f in sys.argv[1:]:
    s = stats(f)
    rows.append((s['recs']/s['size'], s['raw']/s['size'], s['strb']/s['size'], s['size'], s['recs'], s['strb'], os.path.basename(f)[:60]))
rows.sort()
print("recs/B raw/B str/B size recs strbytes file")
for r in rows: print("%.3f %.2f %.2f %d %d %d %s" % r)
