#!/bin/sh
# check-layering.sh - includes may only point down the table in STYLE.md section 1, and
# nothing outside the model reads its columns raw (docs/dev/model.md).
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
# The model's files and the hooks it calls during the load (docs/dev/model.md).
is_model() {
	case $1 in
	analyze/model*.[ch] | analyze/stacks.c | analyze/nccl-model.c | analyze/graphs.c | \
	analyze/ops-nvtx.c | analyze/sanity.c) return 0 ;;
	*) return 1 ;;
	esac
}
# The model's private header: the model, its hooks and the unit test of one.
for f in $(grep -rl '#include "analyze/model-internal.h"' analyze cli report tests 2>/dev/null); do
	is_model "$f" || [ "$f" = tests/unit/analyze/test-ops-nvtx.c ] || {
		echo "layering: $f includes analyze/model-internal.h, private to the model"
		bad=1
	}
done
# No raw reads of the model's tables outside the model: every table and column is read
# through its accessor (analyze/model-access.h, model.h), so that a column can change its
# form by changing its accessor alone. The tables and their columns come from the column
# lists of analyze/model.h, so a new column is covered with no line written here.
raw=$(sh scripts/check-model-reads.sh analyze/model.h) || bad=1
for f in $(find analyze report cli import api -name '*.[ch]' 2>/dev/null | LC_ALL=C sort); do
	is_model "$f" && continue
	hits=$(grep -nE "$raw" "$f") || continue
	echo "layering: $f reads the model's columns raw; use the accessors (docs/dev/model.md):"
	printf "%s\n" "$hits" | sed "s/^/	/"
	bad=1
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
