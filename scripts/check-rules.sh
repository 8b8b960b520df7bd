#!/bin/sh
# check-rules.sh - the contributor rules of docs/dev/rules.md that a grep can
# check. Prints one line per breach and exits 1 when there is any.
#
#   1. no function over 150 lines in the modules and tests (check-function-length.sh)
#   2. no header over 700 lines
#   3. error detail goes into errbuf/errlen: no "const char **why" out-parameters
#   4. logging: a .c file that logs defines GP_LOG_TAG before its first
#      #include; library modules log at debug and trace only; inject/ and the
#      trace/ files it links never log through the sink
#   5. GP_BUG only in cli/, analyze/ and report/
#   6. TMPDIR is read by gp_tmpdir() alone, and no C file names /tmp itself;
#      library modules read no other environment variable
set -u
cd "$(dirname "$0")/.." || exit 1
bad=0
say() {
	echo "check-rules: $*"
	bad=1
}
modules="base trace import inject analyze report api cli python"
libs="base trace import analyze report api python"

# 1, 2
# The tests' programs follow the same limits as the modules.
long=$(sh scripts/check-function-length.sh -n 150 $modules tests)
[ -z "$long" ] || say "functions over 150 lines:
$long"
big=$(sh scripts/check-header-length.sh -n 700 $modules tests)
[ -z "$big" ] || say "headers over 700 lines:
$big"

# 3
why=$(grep -nE 'const char \*\*(why|reason|err|errmsg|msg)\b' $(find $modules -name '*.[ch]'))
[ -z "$why" ] || say "reasons passed out through a pointer, not errbuf/errlen:
$why"

# 4
logs='\bgp_(error|warn|info|debug|trace|warn_once)\('
for f in $(find $modules -name '*.c' | LC_ALL=C sort); do
	grep -qE "$logs" "$f" || continue
	first_inc=$(grep -n -m1 '^#include' "$f" | cut -d: -f1)
	tag=$(grep -n -m1 '^#define GP_LOG_TAG ' "$f" | cut -d: -f1)
	if [ -z "$tag" ] || [ "$tag" -gt "${first_inc:-0}" ]; then
		say "$f logs but does not define GP_LOG_TAG before its first #include"
	fi
	case $f in
	inject/* | trace/writer.c | trace/codec.c | trace/schema.c)
		say "$f logs through the sink, but inject/ links it (it has its own logger)" ;;
	esac
	case $f in
	cli/*) ;;
	*) loud=$(grep -nE '\bgp_(error|warn|info|warn_once)\(' "$f")
	   [ -z "$loud" ] || say "$f: library code logs at debug or trace only:
$loud" ;;
	esac
done

# 5
for f in $(grep -lE '\bGP_BUG\(' $(find $modules -name '*.c') 2>/dev/null); do
	case $f in
	cli/* | analyze/* | report/*) ;;
	*) say "$f uses GP_BUG, which only cli/, analyze/ and report/ may" ;;
	esac
done

# 6
for f in $(grep -lE 'getenv\("TMPDIR"\)|"/tmp' $(find $modules tests -name '*.[ch]') 2>/dev/null); do
	case $f in
	base/util.c | base/base.h | tests/unit/base/test-util.c) ;; # gp_tmpdir and its test
	*) say "$f reads TMPDIR or names /tmp; use gp_tmpdir()" ;;
	esac
done
for f in $(grep -lE '\bgetenv\(' $(find $libs -name '*.c') 2>/dev/null); do
	[ "$f" = base/util.c ] || say "$f reads the environment; only cli/ may (and gp_tmpdir)"
done

[ $bad -eq 0 ] && echo "check-rules: ok"
exit $bad
