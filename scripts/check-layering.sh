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
	api) echo "base trace import analyze report api" ;;
	cli) echo "base trace import analyze report api cli" ;;
	python) echo "api" ;;
	*) echo "" ;;
	esac
}
for mod in base trace inject import analyze report api cli python; do
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
		python/*) ;;
		*.c) first=$(grep -m1 '^#include' "$f")
		     [ "$first" = '#include "base/compat.h"' ] ||
			{ echo "layering: $f must include base/compat.h first"; bad=1; } ;;
		esac
	done
done
# The model's private header: its own files and the hooks it calls (docs/dev/model.md).
for f in $(grep -rl '#include "analyze/model-internal.h"' analyze cli report tests 2>/dev/null); do
	case $f in
	analyze/model*.[ch] | analyze/stacks.c | analyze/nccl-model.c | analyze/graphs.c | \
	analyze/ops-nvtx.c | tests/unit/analyze/test-ops-nvtx.c) ;;
	*) echo "layering: $f includes analyze/model-internal.h, private to the model"; bad=1 ;;
	esac
done
# The model includes no analysis: only its own headers and the steps it runs.
for f in analyze/model*.[ch]; do
	for inc in $(sed -n 's/^#include "analyze\/\(.*\)\.h"/\1/p' "$f"); do
		case $inc in
		model | model-internal | model-access | nccl-model | file-info | import-ahead | sanity) ;;
		*) echo "layering: $f includes analyze/$inc.h: the model includes no analysis"; bad=1 ;;
		esac
	done
done
[ $bad -eq 0 ] && echo "check-layering: ok"
exit $bad
