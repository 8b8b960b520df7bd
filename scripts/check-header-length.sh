#!/bin/sh
# check-header-length.sh - list C headers longer than a limit.
#
#   sh scripts/check-header-length.sh [-n MAX] DIR-OR-FILE...
#
# Prints "file: N lines" for every .h file under the given directories (or
# the given files) with more than MAX lines (700 by default), and exits 1
# when there is any, 0 otherwise, 2 on misuse. A header that long holds more
# than one concern: split it (docs/dev/design.md).
set -u
max=700
if [ "${1:-}" = "-n" ]; then
	[ $# -ge 2 ] || { echo "usage: $0 [-n MAX] DIR-OR-FILE..." >&2; exit 2; }
	max=$2
	shift 2
fi
case $max in
'' | *[!0-9]*) echo "check-header-length: bad limit '$max'" >&2; exit 2 ;;
esac
[ $# -ge 1 ] || { echo "usage: $0 [-n MAX] DIR-OR-FILE..." >&2; exit 2; }

files=$(find "$@" -type f -name '*.h' | LC_ALL=C sort) || exit 2
[ -n "$files" ] || exit 0

# shellcheck disable=SC2086 # file names in this tree have no spaces
awk -v max="$max" '
FNR == 1 && NR > 1 {
	report()
}
{
	name = FILENAME
	n = FNR
}
function report() {
	if (n > max) {
		printf "%s: %d lines\n", name, n
		bad = 1
	}
}
END {
	if (NR > 0) {
		report()
	}
	exit bad ? 1 : 0
}
' $files
