#!/bin/sh
# Inputs are sacred (docs/reliability.md, "Output files"): every output option
# is refused, before anything is written, when its path is one of the traces
# an input directory holds: named through the directory, a symbolic link to
# the directory, or a hard link to the trace. An output with a trace's name
# written into an input directory, which the next run over that directory
# would read, is refused unless --force; --force never lets an output replace
# an input.
. "$TOP/tests/e2e/lib.sh"

mkdir runs other
"$TRACEGEN" --seed 3 --steps 2 --kernels 20 -o runs/a.gpz >/dev/null || fail tracegen
"$TRACEGEN" --seed 4 --steps 2 --kernels 20 -o runs/b.gpz >/dev/null || fail tracegen
ln -s runs linked
ln runs/a.gpz other/hard.gpz
cp runs/a.gpz a.orig
cp runs/b.gpz b.orig

# Each output option, with @ where the output goes and INPUT the directory.
cmds() {
	cat <<'CMDS'
report -o @ INPUT
report --format json -o @ INPUT
report --format html -o @ INPUT
flame -o @ INPUT
flame --format speedscope -o @ INPUT
export --force --sqlite @ INPUT
export --force --perfetto @ INPUT
diff -q --json @ INPUT -- INPUT
diff -q --markdown @ INPUT -- INPUT
diff -q --junit @ INPUT -- INPUT
CMDS
}
intact() {
	cmp -s runs/a.gpz a.orig && cmp -s runs/b.gpz b.orig || fail "$1: an input was changed"
	[ "$(ls runs | tr '\n' ' ')" = "a.gpz b.gpz " ] || fail "$1: runs/ holds $(ls runs)"
}
n=0
for input in runs linked runs/; do
	for out in runs/a.gpz linked/b.gpz other/hard.gpz ./runs/../runs/b.gpz; do
		cmds | while read -r cmd; do
			line=$(echo "$cmd" | sed -e "s|@|$out|" -e "s|INPUT|$input|g")
			set -f
			# shellcheck disable=SC2086
			"$GPUPROF" $line >/dev/null 2>err
			rc=$?
			set +f
			[ "$rc" -eq 2 ] || fail "'$line' exited $rc, expected 2: $(cat err)"
			grep -q "output '$out' is the input '" err || fail "'$line': $(cat err)"
			intact "$line"
		done || exit 1
		n=$((n + 1))
	done
done
[ "$n" -eq 12 ] || fail "ran $n of 12 input/output pairs"

# convert: the output is the input, named through a link.
expect_rc 2 "$GPUPROF" convert --force other/hard.gpz runs/a.gpz
grep -q "is the input" err || fail "convert: $(cat err)"
intact convert

# A new file with a trace's name in an input directory: refused with the
# reason, unless --force; a name the directory scan skips is written.
for cmd in "report --format json -o runs/r.json runs" "flame --format speedscope -o linked/f.json runs" \
	"export --sqlite runs/e.sqlite linked" "export --perfetto runs/p.json runs" \
	"diff -q --json runs/d.json runs -- runs"; do
	set -f
	# shellcheck disable=SC2086
	expect_rc 2 "$GPUPROF" $cmd
	set +f
	grep -q "would be written into the input directory" err || fail "'$cmd': $(cat err)"
	grep -q "add --force" err || fail "'$cmd' does not say how to write it anyway: $(cat err)"
	intact "$cmd"
done
expect_rc 0 "$GPUPROF" report --format json --force -o runs/r.json runs
[ -s runs/r.json ] || fail "--force wrote nothing"
rm runs/r.json
expect_rc 0 "$GPUPROF" report -o runs/report.txt runs
[ -s runs/report.txt ] || fail "a text report was not written into runs/"
rm runs/report.txt
expect_rc 0 "$GPUPROF" diff -q --force --json runs/d.json runs -- runs
rm runs/d.json
expect_rc 0 "$GPUPROF" export --force --sqlite runs/e.sqlite runs
rm runs/e.sqlite
intact "the writes allowed"
