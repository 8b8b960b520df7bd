#!/bin/sh
# check-function-length.sh - list C functions longer than a limit.
#
#   sh scripts/check-function-length.sh [-n MAX] DIR-OR-FILE...
#
# Prints "file:line: name: N lines" for every function in the .c and .h files
# under the given directories (or the given files) whose length exceeds MAX
# (150 by default), and exits 1 when there is any, 0 otherwise, 2 on misuse.
#
# A function's length counts from the first line of its signature to its
# closing brace, both included. A function is a top-level '{' whose preceding
# text (on the same line or the lines above it) ends in ')', possibly followed
# by attributes, as in kernel style; braces of struct, enum and array
# initializers at top level are not functions. Comments, string and character
# literals and preprocessor lines (with their continuations) are skipped when
# counting braces, so a macro body never counts.
set -u
max=150
if [ "${1:-}" = "-n" ]; then
	[ $# -ge 2 ] || { echo "usage: $0 [-n MAX] DIR-OR-FILE..." >&2; exit 2; }
	max=$2
	shift 2
fi
case $max in
'' | *[!0-9]*) echo "check-function-length: bad limit '$max'" >&2; exit 2 ;;
esac
[ $# -ge 1 ] || { echo "usage: $0 [-n MAX] DIR-OR-FILE..." >&2; exit 2; }

files=$(find "$@" -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort) || exit 2
[ -n "$files" ] || exit 0

# shellcheck disable=SC2086 # file names in this tree have no spaces
awk -v max="$max" '
FNR == 1 {
	depth = 0; incomment = 0; inpp = 0; sig = ""; sigline = 0; infn = 0
}
{
	line = $0
	# Preprocessor lines and their continuations hold no function braces.
	if (inpp || (!incomment && line ~ /^[ \t]*#/)) {
		inpp = (line ~ /\\$/)
		next
	}
	# Strip comments, strings and character literals, keeping the code.
	code = ""
	i = 1
	n = length(line)
	while (i <= n) {
		c = substr(line, i, 1)
		if (incomment) {
			if (c == "*" && substr(line, i + 1, 1) == "/") {
				incomment = 0
				i += 2
				code = code " "
				continue
			}
			i++
			continue
		}
		if (c == "/" && substr(line, i + 1, 1) == "*") {
			incomment = 1
			i += 2
			continue
		}
		if (c == "/" && substr(line, i + 1, 1) == "/") {
			break
		}
		if (c == "\"" || c == "\047") {
			q = c
			i++
			while (i <= n) {
				d = substr(line, i, 1)
				if (d == "\\") {
					i += 2
					continue
				}
				i++
				if (d == q) {
					break
				}
			}
			code = code " "
			continue
		}
		code = code c
		i++
	}
	code = code " " # a line break separates words
	for (i = 1; i <= length(code); i++) {
		c = substr(code, i, 1)
		if (depth == 0 && c != "{" && c != "}" && c != ";" && c !~ /[ \t]/) {
			if (sig == "") {
				sigline = FNR
			}
			sig = sig c
		} else if (depth == 0 && c ~ /[ \t]/ && sig != "") {
			sig = sig " "
		}
		if (c == "{") {
			if (depth == 0) {
				t = sig
				sub(/[ \t]+$/, "", t)
				infn = (t ~ /\)$/)
				if (infn) {
					name = fn_name(t)
					start = sigline
				}
			}
			depth++
		} else if (c == "}") {
			depth--
			if (depth == 0) {
				if (infn) {
					len = FNR - start + 1
					if (len > max) {
						printf "%s:%d: %s: %d lines\n", FILENAME, start, name, len
						bad = 1
					}
				}
				infn = 0
				sig = ""
			}
		} else if (c == ";" && depth == 0) {
			sig = ""
		}
	}
}
# The called name in a signature: the first identifier before a "(" that is
# not an all-capitals macro (GP_PRINTF(3, 4) void f(...)), else the first.
function fn_name(t,    first, id) {
	first = ""
	while (match(t, /[A-Za-z_][A-Za-z0-9_]* *\(/)) {
		id = substr(t, RSTART, RLENGTH)
		sub(/ *\($/, "", id)
		t = substr(t, RSTART + RLENGTH)
		if (first == "") {
			first = id
		}
		if (id != "__attribute__" && id ~ /[a-z]/) {
			return id
		}
	}
	return first
}
END {
	exit bad ? 1 : 0
}
' $files
