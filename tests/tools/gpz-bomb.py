#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpz-bomb.py KIND OUT [N] - writes a small hostile .gpz (trace/FORMAT.md) whose
chunks inflate to far more than the file holds, to check that the reader bounds
what a file can make it allocate.

KIND:
  strings  N string chunks (default 4), each 63 strings of 1 MiB of one byte
           (63 MiB raw, about 64 KiB deflated)
  names    N string chunks (default 4), each 131072 distinct 500-byte strings
           that deflate well (about 64 MiB raw)
  records  N kernel chunks (default 2000) of 131072 records and no column
           (a 1-byte payload: every field 0)
  ids      N kernel chunks (default 1) of one record whose name is string id
           4294967040 (never defined), and whose demangled name is id N
  columns  N kernel chunks (default 64) of 131072 records whose columns are
           long runs that deflate well (a few MiB raw each)
"""
import struct
import sys
import zlib


def crc(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def file_header():
    h = b"\x89GPZ\r\n\x1a\n" + struct.pack("<HHIIQ", 1, 2, 0, 32, 0)
    return h + struct.pack("<I", crc(h))


def chunk(kind, count, raw, deflate=True):
    stored = raw
    flags = 0
    if deflate and raw:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        stored = c.compress(raw) + c.flush()
        flags = 1
    h = struct.pack("<IHHIIIIQQI", 0x435A5047, kind, flags, count, len(raw), len(stored),
                    crc(raw), 0, 0, 0)
    return h + struct.pack("<I", crc(h)) + stored


def strings(n):
    out = []
    first = 1
    for _ in range(n):
        one = varint(1 << 20) + b"A" * (1 << 20)
        out.append(chunk(1, 63, varint(first) + one * 63))
        first += 63
    return out


def names(n):
    out = []
    first = 1
    for _ in range(n):
        count = 131072
        body = bytearray(varint(first))
        pad = b"k" * 492
        for i in range(count):
            s = pad + b"%08d" % (first + i)
            body += varint(len(s)) + s
        out.append(chunk(1, count, bytes(body)))
        first += count
    return out


def records(n):
    one = chunk(9, 131072, varint(0), deflate=False)
    return [one] * n


def columns(n):
    count = 131072
    # start: DELTA of 1 each; name: CONST id 0; grid_x: VARINT of 1 each
    vals = b"\x02" * count
    cols = (varint(1) + b"\x03" + varint(len(vals)) + vals +
            varint(12) + b"\x01" + varint(len(b"\x01" * count)) + b"\x01" * count)
    one = chunk(9, count, varint(2) + cols)
    return [one] * n


def ids(n):
    col = varint(10) + b"\x00" + varint(4294967040) + varint(11) + b"\x00" + varint(4294967000)
    return [chunk(9, 1, varint(2) + col)] * n


def main():
    kind, out = sys.argv[1], sys.argv[2]
    gens = {"strings": (strings, 4), "names": (names, 4), "records": (records, 2000),
            "columns": (columns, 64), "ids": (ids, 1)}
    fn, dflt = gens[kind]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else dflt
    with open(out, "wb") as f:
        f.write(file_header())
        for c in fn(n):
            f.write(c)


main()
