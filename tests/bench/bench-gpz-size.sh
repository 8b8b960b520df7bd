#!/bin/sh
# bench-gpz-size.sh - size of `gpuprof convert` output against the gzipped
# Kineto JSON, per anchor, with the .gpz split into fixed overhead and payload.
#
# usage: sh tests/bench/bench-gpz-size.sh GPUPROF
#
# For every Kineto anchor (../shared/anchors/kineto/**/*.json[.gz]; "skipped"
# without them):
#   src B      the .json.gz as stored (a plain .json: gzip -6 of it, made here)
#   gpz B      the converted file
#   fixed B    what does not depend on the data: the 32-byte file header, the
#              48-byte header of every chunk, the footer index chunk(s) and the
#              24-byte trailer (walked from the file itself, trace/FORMAT.md);
#              a packed file (format 2.0) has header and one chunk header, the
#              inner chunk headers being deflated with the payload
#   payload B  gpz B - fixed B: the compressed strings and records
#   strings B  the strings-alone bound: the distinct strings of the converted
#              file (its string chunks, packed or not), joined by NUL bytes and
#              deflated at level 9 (raw deflate): no lossless layout that keeps
#              the names as text gets below it
#   verdict    PASS when gpz/src <= 1/3; else MISS, "MISS (strings)" when the
#              strings-alone bound is over 1/3 of src, "MISS (payload)" when
#              the payload alone is, i.e. the file would miss with no fixed
#              overhead at all
# Exits 1 if a conversion fails.
set -u
gpuprof=${1:?usage: bench-gpz-size.sh GPUPROF}
top=$(cd "$(dirname "$0")/../.." && pwd)
anchors=$top/../shared/anchors/kineto
if [ ! -d "$anchors" ]; then
	echo "bench-gpz-size: skipped (no $anchors)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-gpz-size-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "| anchor | events | src B | gpz B | gpz/src | verdict | fixed B | payload B | payload/src | strings B | strings/src |"
echo "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
failed=0
for f in $(find "$anchors" -name '*.json' -o -name '*.json.gz' | xargs ls -S); do
	name=${f#"$anchors"/}
	case $f in
	*.gz) src=$f ;;
	*) gzip -6 -c "$f" >"$tmp/src.gz"; src=$tmp/src.gz; name="$name (gzipped here)" ;;
	esac
	if ! "$gpuprof" convert "$f" "$tmp/o.gpz" 2>"$tmp/err"; then
		echo "FAIL $name: $(cat "$tmp/err")"
		failed=1
		continue
	fi
	ev=$("$gpuprof" info --json "$tmp/o.gpz" | python3 -c 'import json,sys
r=json.load(sys.stdin)["files"][0]["records"]
print(sum(r.get(k,0) for k in ("kernel","memcpy","memset","api","nvtx","sync","nccl")))')
	python3 - "$name" "$ev" "$src" "$tmp/o.gpz" <<'PY'
import os, struct, sys, zlib
name, ev, src, gpz = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s, g = os.path.getsize(src), os.path.getsize(gpz)
data = open(gpz, "rb").read()
hdr = struct.unpack_from("<I", data, 16)[0]
major = struct.unpack_from("<H", data, 8)[0]

def varint(b, i):
    v = sh = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << sh; sh += 7
        if c < 0x80:
            return v, i

strings = set()
def take_strings(p, count):
    i = varint(p, 0)[1]
    for _ in range(count):
        n, i = varint(p, i)
        strings.add(bytes(p[i:i + n])); i += n

off, fixed = hdr, hdr
while off + 48 <= len(data) and data[off:off + 4] == b"GPZC":
    kind, flags, count, raw, stored = struct.unpack_from("<HHIII", data, off + 4)
    fixed += 48 + (stored if kind == 127 else 0)
    p = data[off + 48:off + 48 + stored]
    if flags & 1:
        p = zlib.decompress(p, -15)
    if kind == 1:
        take_strings(p, count)
    elif kind == 126 and major >= 2:  # packed: inner kind, count, length, first ts, span
        i = 0
        for _ in range(count):
            k, i = varint(p, i); c, i = varint(p, i); n, i = varint(p, i)
            i = varint(p, varint(p, i)[1])[1]
            if k == 1:
                take_strings(p[i:i + n], c)
            i += n
    off += 48 + stored
fixed += len(data) - off  # the trailer
pay = g - fixed
co = zlib.compressobj(9, zlib.DEFLATED, -15)
sb = len(co.compress(b"\0".join(sorted(strings))) + co.flush())
v = "PASS" if g * 3 <= s else ("MISS (strings)" if sb * 3 > s else
                               "MISS (payload)" if pay * 3 > s else "MISS")
print("| %s | %d | %d | %d | %.3f | %s | %d | %d | %.3f | %d | %.3f |" %
      (name, ev, s, g, g / s, v, fixed, pay, pay / s, sb, sb / s))
PY
done
exit $failed
