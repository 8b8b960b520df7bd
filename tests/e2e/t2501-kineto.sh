#!/bin/sh
# Kineto JSON import (import/kineto.c) on every real anchor trace in
# ../shared/anchors/kineto/hta: each must import without error, and the
# records per kind must equal the events counted with python3's json module.
# The importer has no command yet, so a small driver is built here.
. "$TOP/tests/e2e/lib.sh"

anchors=$TOP/../shared/anchors/kineto/hta
[ -d "$anchors" ] || exit 77
command -v python3 >/dev/null 2>&1 || exit 77
command -v gcc >/dev/null 2>&1 || exit 77
[ -f /usr/include/isa-l/igzip_lib.h ] || exit 77

cat >drv.c <<'C'
#include "base/compat.h"
#include "import/import.h"
#include <stdio.h>
int main(int argc, char **argv)
{
	struct gpt_writer *w;
	struct gpt_writer_stats st;
	char err[512];
	int rc;

	if (argc != 3 || gpt_writer_open(argv[2], NULL, &w)) {
		return 2;
	}
	rc = gpa_import_kineto(argv[1], w, err, sizeof(err));
	gpt_writer_flush(w);
	gpt_writer_get_stats(w, &st);
	if (gpt_writer_close(w) || rc) {
		fprintf(stderr, "%s (%d)\n", err, rc);
		return 1;
	}
	printf("%llu %llu %llu %llu %llu\n", (unsigned long long)st.records[GPT_KIND_KERNEL],
	       (unsigned long long)st.records[GPT_KIND_MEMCPY],
	       (unsigned long long)st.records[GPT_KIND_MEMSET],
	       (unsigned long long)st.records[GPT_KIND_API],
	       (unsigned long long)st.records[GPT_KIND_NVTX]);
	return 0;
}
C
gcc -std=gnu11 -O2 -I"$TOP" -DGP_VERSION='"e2e"' -o drv drv.c "$TOP/import/kineto.c" "$TOP/import/json-scan.c" \
	"$TOP"/trace/*.c "$TOP"/base/*.c -lisal -lz -lm 2>cc.err || fail "driver: $(cat cc.err)"

n=0
for f in $(find "$anchors" -name '*.json.gz' -o -name '*.json' | sort); do
	./drv "$f" out.gpz >got 2>err || fail "import $f: $(cat err)"
	python3 - "$f" >want <<'PY' || fail "python3 could not count $f"
import gzip, json, sys
p = sys.argv[1]
with open(p, "rb") as fh:
    gz = fh.read(2) == b"\x1f\x8b"
d = json.load(gzip.open(p, "rt") if gz else open(p))
cats = {"kernel": 0, "Kernel": 0, "gpu_memcpy": 1, "Memcpy": 1, "gpu_memset": 2, "Memset": 2,
        "cuda_runtime": 3, "Runtime": 3, "cuda_driver": 3, "cpu_op": 4, "Operator": 4,
        "user_annotation": 4, "python_function": 4, "gpu_user_annotation": 4}
n = [0] * 5
for e in d["traceEvents"]:
    if e.get("cat") == "gpu_user_annotation" and e.get("name", "").startswith("ProfilerStep#"):
        continue  # projections of the CPU step ranges: not imported
    if e.get("ph") == "X" and e.get("cat") in cats:
        n[cats[e["cat"]]] += 1
print(*n)
PY
	cmp -s got want || fail "$f: kernel memcpy memset api nvtx: got $(cat got), want $(cat want)"
	n=$((n + 1))
done
[ "$n" -ge 20 ] || fail "only $n anchors found"

# The imported trace loads in gpuprof (when the command exists).
f=$anchors/nccl_parser_config/nccl_data.json.gz
./drv "$f" nccl.gpz >/dev/null || fail "import $f"
if "$GPUPROF" help stats >/dev/null 2>&1; then
	expect_rc 0 "$GPUPROF" stats nccl.gpz
fi
exit 0
