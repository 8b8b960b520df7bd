#!/bin/sh
# check-model-reads.sh MODEL_H - prints one extended regular expression that
# matches a raw read of the model's tables (check-layering.sh): a column by
# name (m->copy.bytes, t.nvtx.start), a row count (m->kern.n), a table's type
# (struct gpa_memcpys), the optional-column readers (gpa_col_opt*) and the
# encoded columns' side lists (m->kern_long). The tables, their types,
# fields and columns are read from MODEL_H: GPA_TABLES, and the X(type, name)
# of the column lists it names.
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
line ~ /^#define GPA_TABLES\(X\)/ {
	b = line
	while (match(b, /X\([ ]*[a-z_]+[ ]*,[ ]*[a-z_]+[ ]*,[ ]*[A-Z0-9_]+[ ]*,[ ]*[A-Z0-9_]+[ ]*\)/)) {
		t = substr(b, RSTART + 2, RLENGTH - 3)
		b = substr(b, RSTART + RLENGTH)
		gsub(/ /, "", t)
		split(t, a, ",")
		ntab++
		tname[ntab] = a[1]
		field[ntab] = a[2]
		plain[ntab] = a[3]
		opt[ntab] = a[4]
	}
}
END {
	re = "gpa_col_opt(8|64)?\\(|(->|\\.)(kern|api)_(long|starts)\\b"
	for (i = 1; i <= ntab; i++) {
		f = field[i]
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
