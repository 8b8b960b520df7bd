#!/bin/sh
# The check that no file outside the model reads its columns raw
# (scripts/check-model-reads.sh, run by make check-layering): the pattern it
# makes from analyze/model.h names every table of the model, it finds a raw
# read, a row count, a table alias and an optional-column reader outside the
# model and lets the accessors and the model's own files through, and a tree
# with a breach fails check-layering with the file and line named.
. "$TOP/tests/e2e/lib.sh"

re=$(sh "$TOP/scripts/check-model-reads.sh" "$TOP/analyze/model.h") || fail "no pattern"
# every table of GPA_TABLES is in it
for t in $(sed -n 's/^[[:space:]]*X(\(gpa_[a-z_]*\), .*/\1/p' "$TOP/analyze/model.h"); do
	printf "%s\n" "$re" | grep -q "struct $t\\\\b" || fail "table $t missing from the pattern"
done
[ "$(printf "%s\n" "$re" | grep -o 'struct gpa_[a-z]*' | wc -l)" -ge 9 ] || fail "fewer than 9 tables: $re"

cat >raw.c <<'C'
x = m->copy.bytes[i];
y = e->m->nvtx.start[k];
z = m->kern.n;
const struct gpa_mems *t = &m->mem;
v = gpa_col_opt(m->kern.corr, i);
w = m.api.n;
u = m->kern_long.n;
C
cat >clean.c <<'C'
x = gpa_copy_bytes(m, i);
y = gpa_nvtx_start(e->m, k);
z = gpa_kern_rows(m);
s = gpa_nvtx_start_col(m);
if (gpa_mem_has_corr(m)) {}
f = fs->mem.n; /* a result's vector, not the model's table */
g = r->gpu.mean;
C
[ "$(grep -cE "$re" raw.c)" = 7 ] || fail "raw reads found: $(grep -nE "$re" raw.c)"
grep -nE "$re" clean.c && fail "accessors taken for raw reads"

# A tree with a breach in report/ fails; the same read in a model file passes.
mkdir -p tree/scripts tree/analyze tree/report
cp "$TOP/scripts/check-layering.sh" "$TOP/scripts/check-model-reads.sh" tree/scripts/
cp "$TOP/analyze/model.h" tree/analyze/
printf '#include "base/compat.h"\nstatic int f(void) { return m->sync.api[0]; }\n' >tree/analyze/model-x.c
expect_rc 0 sh tree/scripts/check-layering.sh
printf '#include "base/compat.h"\nstatic int f(void) { return m->sync.api[0]; }\n' >tree/report/y.c
expect_rc 1 sh tree/scripts/check-layering.sh
grep -q "^layering: report/y.c reads the model's columns raw" out || fail "$(cat out)"
grep -q "2:static int f(void) { return m->sync.api\[0\]; }" out || fail "line not named: $(cat out)"
grep -q model-x out && fail "a model file was refused: $(cat out)"
exit 0
