#!/bin/sh
# check-layering.sh - includes may only point down the table in STYLE.md section 1.
set -u
cd "$(dirname "$0")/.." || exit 1
bad=0
allowed() { # module -> modules it may include
	case $1 in
	base) echo "base" ;;
	trace) echo "base trace" ;;
	inject) echo "base trace inject" ;;
	import) echo "base trace import" ;;
	analyze) echo "base trace import analyze" ;;
	report) echo "base analyze report" ;;
	cli) echo "base trace import analyze report cli" ;;
	*) echo "" ;;
	esac
}
for mod in base trace inject import analyze report cli; do
	[ -d "$mod" ] || continue
	ok=$(allowed "$mod")
	for f in $(find "$mod" -name '*.[ch]'); do
		for inc in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f"); do
			case " $ok " in
			*" $inc "*) ;;
			*) echo "layering: $f includes $inc/, which $mod/ may not use"; bad=1 ;;
			esac
		done
		case $f in
		*.c) first=$(grep -m1 '^#include' "$f")
		     [ "$first" = '#include "base/compat.h"' ] ||
			{ echo "layering: $f must include base/compat.h first"; bad=1; } ;;
		esac
	done
done
[ $bad -eq 0 ] && echo "check-layering: ok"
exit $bad
