#!/bin/sh
# check-model-reads.sh MODEL_H - prints one extended regular expression that
# matches a raw read of the model's tables (check-layering.sh): a column by
# name (m->copy.bytes, t.nvtx.start), a row count (m->kern.n), a table's type
# (struct gpa_memcpys), the optional-column readers (gpa_col_opt*) and the
# encoded columns' side lists (m->kern_long). The tables, their types and
# columns are read from the column lists of MODEL_H (X(type, name) in the
# GPA_*_COLS macros each GPA_DECLARE_TABLE_ names, and the struct gpa_model
# field of each table's type).
set -u
[ -r "${1:-}" ] || { echo "usage: check-model-reads.sh analyze/model.h" >&2; exit 1; }
awk '
function cols(name,    b, out, t, sub_) {
	b = body[name]
	out = ""
	while (match(b, /X\([ ]*[a-z0-9_]+[ ]*,[ ]*[a-z0-9_]+[ ]*\)/)) {
		t = substr(b, RSTART, RLENGTH)
		b = substr(b, RSTART + RLENGTH)
		sub(/^X\([^,]*,[ ]*/, "", t)
		sub(/[ ]*\)$/, "", t)
		out = out "|" t
	}
	b = body[name]
	while (match(b, /GPA_[A-Z0-9_]+\(X\)/)) {
		sub_ = substr(b, RSTART, RLENGTH - 3)
		b = substr(b, RSTART + RLENGTH)
		out = out cols(sub_)
	}
	return out
}
/\\$/ { buf = buf substr($0, 1, length($0) - 1) " "; next }
{ line = buf $0; buf = "" }
line ~ /^#define GPA_[A-Z0-9_]+\(X\)/ {
	n = line
	sub(/^#define /, "", n)
	sub(/\(X\).*/, "", n)
	body[n] = substr(line, index(line, "(X)") + 3)
}
line ~ /^GPA_DECLARE_TABLE_\(/ {
	t = line
	sub(/^GPA_DECLARE_TABLE_\(/, "", t)
	sub(/\).*/, "", t)
	gsub(/ /, "", t)
	split(t, a, ",")
	ntab++
	tname[ntab] = a[1]
	plain[ntab] = a[2]
	opt[ntab] = a[3]
}
line ~ /^[ \t]+struct gpa_[a-z_]+ [a-z_]+;/ {
	t = line
	sub(/^[ \t]+struct /, "", t)
	sub(/;.*/, "", t)
	split(t, a, " ")
	field[a[1]] = a[2]
}
END {
	re = "gpa_col_opt(8|64)?\\(|(->|\\.)(kern|api)_(long|starts)\\b"
	for (i = 1; i <= ntab; i++) {
		f = field[tname[i]]
		if (f == "") {
			continue
		}
		c = cols(plain[i]) cols(opt[i])
		re = re "|\\bstruct " tname[i] "\\b|(->|\\.)" f "\\.(" substr(c, 2) ")\\b"
		re = re "|\\bm(->|\\.)" f "\\.(n|cap)\\b"
		found++
	}
	if (!found) {
		print "check-model-reads: no tables found in the column lists" > "/dev/stderr"
		exit 1
	}
	print re
}' "$1"
