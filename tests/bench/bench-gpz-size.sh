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
#              24-byte trailer (walked from the file itself, trace/FORMAT.md)
#   payload B  gpz B - fixed B: the compressed strings and records
#   verdict    PASS when gpz/src <= 1/3; else MISS, and "MISS (payload)" when
#              even the payload alone is over 1/3 of src, i.e. the file would
#              miss with no fixed overhead at all
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

echo "| anchor | events | src B | gpz B | gpz/src | verdict | fixed B | payload B | payload/src |"
echo "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
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
import os, struct, sys
name, ev, src, gpz = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s, g = os.path.getsize(src), os.path.getsize(gpz)
data = open(gpz, "rb").read()
hdr = struct.unpack_from("<I", data, 16)[0]
off, fixed = hdr, hdr
while off + 48 <= len(data) and data[off:off + 4] == b"GPZC":
    kind = struct.unpack_from("<H", data, off + 4)[0]
    stored = struct.unpack_from("<I", data, off + 16)[0]
    fixed += 48 + (stored if kind == 127 else 0)
    off += 48 + stored
fixed += len(data) - off  # the trailer
pay = g - fixed
v = "PASS" if g * 3 <= s else ("MISS (payload)" if pay * 3 > s else "MISS")
print("| %s | %d | %d | %d | %.3f | %s | %d | %d | %.3f |" % (name, ev, s, g, g / s, v, fixed, pay, pay / s))
PY
done
exit $failed
