#!/bin/sh
# One option vocabulary: a long option names one thing (one value name) in every
# command; every option a help names parses; the earlier spellings still work;
# errors suggest the name meant; completion scripts made from the same tables.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 30 -o a.gpz >/dev/null || fail "tracegen"

# ---- one meaning per name: the option tables, as 'completion list' prints them
expect_rc 0 "$GPUPROF" completion list
mv out list
grep -q "^gaps	--gpu	-d	N$" list || fail "gaps has no --gpu N: $(grep '^gaps' list)"
grep -q "^mfu	--device	-	NAME$" list || fail "mfu has no --device NAME"
awk -F '	' '{
	if (($2 in v) && v[$2] != $4) {
		printf "%s is %s in %s but %s in %s\n", $2, v[$2], c[$2], $4, $1; bad = 1
	} else if (!($2 in v)) { v[$2] = $4; c[$2] = $1 }
} END { exit bad }' list >clash || fail "one option name, two meanings: $(cat clash)"
# A short option stands for one long option everywhere (-d is --gpu, -f --format).
awk -F '	' '$3 != "-" {
	if (($3 in v) && v[$3] != $2) {
		printf "%s is %s in %s but %s in %s\n", $3, v[$3], c[$3], $2, $1; bad = 1
	} else if (!($3 in v)) { v[$3] = $2; c[$3] = $1 }
} END { exit bad }' list >clash || fail "one short option, two long ones: $(cat clash)"

# ---- every option a help names parses, and every option is in its command's help
# (under GPUPROF_ANCHOR_SWEEP=small, CI's sanitized half, one option in three is parsed:
# the same parser on the same tables; the plain half parses every one)
cmds=$(cut -f1 list | sort -u)
nopt=0
for c in $cmds; do
	expect_rc 0 "$GPUPROF" "$c" --help
	mv out help.$c
	# The usage lines (up to the first blank line) and the option list (lines that
	# start with an option, and their continuation lines).
	awk 'NR == 1, /^$/ { print; next }
	     /^  -|^      --/ { inopt = 1; print; next }
	     inopt && /^                / { print; next }
	     { inopt = 0 }' help.$c | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >names.$c
	[ -s names.$c ] || fail "$c --help names no option"
	while read -r name; do
		nopt=$((nopt + 1))
		sweep_sampled $nopt || continue
		"$GPUPROF" "$c" "$name" </dev/null >o 2>e
		if grep -q "unknown option\|ambiguous option\|takes no value" e; then
			fail "$c --help names $name, which does not parse: $(head -1 e)"
		fi
	done <names.$c
	for name in $(awk -F '	' -v c="$c" '$1 == c { print $2 }' list); do
		grep -q -- "$name\b" help.$c || fail "$c --help does not list $name"
	done
done
# The three every command takes are in a help, --threads included.
for name in --threads --quiet --allow-unrelated; do
	grep -q "^      $name" help.gaps || fail "gaps --help lacks $name"
done
grep -q -- "--busy-share" help.flame && fail "flame --help names --busy-share"
# diff reads --config first (a prescan): a bad common option is still said there.
expect_rc 2 "$GPUPROF" diff --threads 0 a.gpz -- a.gpz
grep -q -- "--threads needs a number of threads from 1" err || fail "diff --threads 0: $(cat err)"
# Commands that read no trace take none of the three.
expect_rc 2 "$GPUPROF" devices --threads 2
grep -q "unknown option '--threads'" err || fail "devices --threads: $(cat err)"
expect_rc 2 "$GPUPROF" record --quiet -- true
grep -q "unknown option '--quiet'" err || fail "record --quiet: $(cat err)"

# ---- errors that help
expect_rc 2 "$GPUPROF" reprot a.gpz
grep -q "no such command: 'reprot'; did you mean 'report'?" err || fail "reprot: $(cat err)"
expect_rc 2 "$GPUPROF" gaps --fromat json a.gpz
grep -q "unknown option '--fromat'; did you mean '--format'?" err || fail "fromat: $(cat err)"
expect_rc 2 "$GPUPROF" gaps --format
grep -q "option '--format' needs a value (FORMAT)" err || fail "missing value: $(cat err)"
expect_rc 2 "$GPUPROF" gaps --t 3 a.gpz # as docs/options.md shows it
grep -qx "gpuprof: error: ambiguous option '--t': --top, --table, --timeunit" err ||
	fail "ambiguous: $(cat err)"
expect_rc 2 "$GPUPROF" gaps --zzzzzz a.gpz
grep -qx "gpuprof: error: unknown option '--zzzzzz'" err || fail "unknown: $(cat err)"
expect_rc 2 "$GPUPROF" flame -o out.png a.gpz
grep -q "cannot write 'out.png': the formats written here are folded (.folded), svg (.svg) and speedscope (.json)" err ||
	fail "flame -o out.png: $(cat err)"
[ -e out.png ] && fail "flame wrote out.png"
expect_rc 2 "$GPUPROF" flame --format svg -o out.json a.gpz
grep -q "cannot write 'out.json' as svg" err || fail "svg into .json: $(cat err)"
# The format from the extension where the format is not given.
expect_rc 0 "$GPUPROF" flame -o f.svg a.gpz
grep -q '<svg' f.svg || fail "flame -o f.svg is not SVG"
expect_rc 0 "$GPUPROF" report -o r.json a.gpz
python3 -c 'import json; json.load(open("r.json"))' || fail "report -o r.json is not JSON"
expect_rc 0 "$GPUPROF" report -o r.html a.gpz
grep -q '<html' r.html || fail "report -o r.html is not HTML"
echo hello >text.json.txt
expect_rc 1 "$GPUPROF" info text.json.txt
grep -qx "gpuprof: error: text.json.txt: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite file" err ||
	fail "not a trace: $(cat err)"

# ---- the new names and the earlier ones agree
same() { # same WHAT CMD1... -- CMD2...: both succeed with the same standard output
	what=$1
	shift
	a=""
	while [ "$1" != "--" ]; do a="$a $1"; shift; done
	shift
	expect_rc 0 "$GPUPROF" $a
	mv out same.a
	expect_rc 0 "$GPUPROF" "$@"
	cmp -s same.a out || fail "$what: '$a' and '$*' differ"
}
same "gaps --gpu" gaps --device 0 a.gpz -- gaps --gpu 0 a.gpz
same "gaps -d" gaps -d 0 a.gpz -- gaps --gpu 0 a.gpz
same "flame --gpu" flame --device 0 a.gpz -- flame --gpu 0 a.gpz
same "occupancy --gpu" occupancy --device 0 a.gpz -- occupancy --gpu 0 a.gpz
same "info --format json" info --json a.gpz -- info --format json a.gpz
same "dump --format json" dump --json a.gpz -- dump --format json a.gpz
same "stats msec" stats --timeunit msec a.gpz -- stats --timeunit ms a.gpz
same "gaps nsec" gaps --timeunit nsec a.gpz -- gaps --timeunit ns a.gpz
expect_rc 0 "$GPUPROF" gaps --timeunit us a.gpz
grep -q "Window (us)" out || fail "gaps --timeunit us: $(sed -n 5p out)"
expect_rc 2 "$GPUPROF" gaps --timeunit hours a.gpz
grep -q "unknown time unit 'hours'; use auto, ns, us, ms or s" err || fail "hours: $(cat err)"
expect_rc 0 "$GPUPROF" diff --no-table --json old.json a.gpz -- a.gpz
[ -s out ] && fail "diff --no-table printed a table"
expect_rc 0 "$GPUPROF" diff --format json -o new.json a.gpz -- a.gpz
[ -s out ] || fail "diff --format json -o FILE left out the table"
cmp -s old.json new.json || fail "diff --json FILE and --format json -o FILE differ"
expect_rc 0 "$GPUPROF" diff --format json a.gpz -- a.gpz
cmp -s old.json out || fail "diff --format json on standard output differs"
# --quiet means what it means everywhere: no progress line, the table stays.
expect_rc 0 "$GPUPROF" diff --quiet a.gpz -- a.gpz
grep -q "per step" out || fail "diff --quiet hid the table: $(head -2 out)"
expect_rc 0 "$GPUPROF" critical-path --format csv --top all a.gpz
nall=$(wc -l <out)
expect_rc 0 "$GPUPROF" critical-path --format csv --top 1 a.gpz
[ "$nall" -gt "$(wc -l <out)" ] || fail "critical-path --top all lists no more than --top 1"

# ---- completion, made from the tables
expect_rc 0 "$GPUPROF" completion bash
mv out gpuprof.bash
bash -n gpuprof.bash || fail "the bash completion does not parse"
cat >complete.sh <<'EOF'
. ./gpuprof.bash
COMP_WORDS=(gpuprof rep); COMP_CWORD=1; _gpuprof; echo "1 ${COMPREPLY[*]}"
COMP_WORDS=(gpuprof gaps --fo); COMP_CWORD=2; _gpuprof; echo "2 ${COMPREPLY[*]}"
COMP_WORDS=(gpuprof gaps --g); COMP_CWORD=2; _gpuprof; echo "3 ${COMPREPLY[*]}"
COMP_WORDS=(gpuprof flame --speedscope ''); COMP_CWORD=3; _gpuprof; echo "4 ${COMPREPLY[*]}"
COMP_WORDS=(gpuprof help cr); COMP_CWORD=2; _gpuprof; echo "5 ${COMPREPLY[*]}"
COMP_WORDS=(gpuprof gaps -f ''); COMP_CWORD=3; _gpuprof; echo "6 ${COMPREPLY[*]}"
COMP_WORDS=(gpuprof stats --timeunit m); COMP_CWORD=3; _gpuprof; echo "7 ${COMPREPLY[*]}"
EOF
bash complete.sh >completed 2>&1 || fail "completing failed: $(cat completed)"
grep -qx "1 report" completed || fail "command: $(cat completed)"
grep -qx "2 --format" completed || fail "option: $(cat completed)"
grep -qx "3 --gpu" completed || fail "--g: $(cat completed)"
grep -qx "4 sampled evented" completed || fail "values: $(cat completed)"
grep -qx "5 critical-path" completed || fail "help: $(cat completed)"
grep -qx "6 text json csv markdown" completed || fail "formats: $(cat completed)"
grep -qx "7 ms msec" completed || fail "time units: $(cat completed)"
expect_rc 0 "$GPUPROF" completion zsh
mv out _gpuprof
head -1 _gpuprof | grep -qx '#compdef gpuprof' || fail "zsh: $(head -1 _gpuprof)"
grep -q "'--gpu\[only CUDA device N (in every process)\]:N:_files'" _gpuprof || fail "zsh --gpu"
if command -v zsh >/dev/null 2>&1; then
	zsh -n _gpuprof || fail "the zsh completion does not parse"
fi
expect_rc 2 "$GPUPROF" completion fish
grep -q "unknown shell 'fish'" err || fail "fish: $(cat err)"
exit 0
