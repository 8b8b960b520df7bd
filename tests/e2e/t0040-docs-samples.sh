#!/bin/sh
# The sample outputs of README.md and docs/*.md are what their commands print
# today: scripts/docs-samples.py runs each sample's commands and fails, showing
# the difference, when a block differs; `make docs-samples` refreshes them.
# Samples that read ../shared's anchors skip without them (fail in CI).
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
shared=$(dirname "$ANCHORS")
have_anchors kineto nsys || shared=
cd "$TOP" || fail "no checkout at $TOP"
n=$(grep -l '^<!-- sample' README.md docs/*.md | wc -l)
[ "$n" -ge 2 ] || fail "only $n files hold samples: the markers went missing"
python3 scripts/docs-samples.py --check --build "$BUILD" ${shared:+--shared "$shared"} \
	README.md docs/*.md >"$OLDPWD/out" 2>&1
rc=$?
cd "$OLDPWD" || exit 1
cat out
[ $rc -eq 0 ] || fail "docs samples differ from today's output: run 'make docs-samples'"
grep -q '^docs-samples: [1-9][0-9]* samples run, 0 differ' out || fail "no sample ran"

# The checker itself: a stale sample is found and named with its refresh target,
# a failing command fails, and a refresh makes the check pass.
cat >doc.md <<'MD'
text
<!-- sample: gpuprof --version -->
```
$ gpuprof --version
gpuprof 0.0.0
```
<!-- end sample -->
tail
MD
python3 "$TOP/scripts/docs-samples.py" --check --build "$BUILD" doc.md >out 2>&1 &&
	fail "a stale sample passed: $(cat out)"
grep -q "doc.md:2 (printed today)" out || fail "the stale sample is not named: $(cat out)"
grep -q "make docs-samples" out || fail "the refresh target is not named: $(cat out)"
cp doc.md before.md
python3 "$TOP/scripts/docs-samples.py" --build "$BUILD" doc.md >out 2>&1 || fail "refresh: $(cat out)"
python3 "$TOP/scripts/docs-samples.py" --check --build "$BUILD" doc.md >out 2>&1 ||
	fail "refreshed sample still differs: $(cat out)"
"$GPUPROF" --version >v || fail "--version"
grep -qxF "$(cat v)" doc.md || fail "the refresh did not write the command's output"
[ "$(head -n 1 doc.md)" = text ] && [ "$(tail -n 1 doc.md)" = tail ] || fail "text around the sample changed"
printf '<!-- sample: false -->\n```\n```\n<!-- end sample -->\n' >bad.md
python3 "$TOP/scripts/docs-samples.py" --build "$BUILD" bad.md >out 2>&1 && fail "a failing command passed"
grep -q "bad.md:1: 'false' exited 1" out || fail "the failing command is not named: $(cat out)"
# A sample inside a list item: the block comes indented as its marker is.
printf -- '- item\n\n  <!-- sample: echo one; echo; echo two -->\n  ```\n  ```\n  <!-- end sample -->\n' >ind.md
python3 "$TOP/scripts/docs-samples.py" --build "$BUILD" ind.md >out 2>&1 || fail "indented refresh: $(cat out)"
printf -- '- item\n\n  <!-- sample: echo one; echo; echo two -->\n  ```\n  $ echo one; echo; echo two\n  one\n\n  two\n  ```\n  <!-- end sample -->\n' >ind.want
cmp ind.md ind.want || fail "indented sample: $(cat ind.md)"
python3 "$TOP/scripts/docs-samples.py" --check --build "$BUILD" ind.md >out 2>&1 ||
	fail "indented sample stale right after its refresh: $(cat out)"
exit 0
