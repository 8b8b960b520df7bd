#!/bin/sh
# Every command that prints text, on every anchor (PyTorch profiler and nsys, each
# converted once) and a generated trace, at COLUMNS=80, 100 and 120, read the way a
# user meets it (docs/units.md):
#   - no line wider than COLUMNS (characters, "µ" one);
#   - numbers in units: no "2.36053e+11" (FLOPs, bytes), no bare "us" beside "µs",
#     no "108384.706 MB";
#   - no two rows of a table read the same where a name was shortened ("…"):
#     names shortened together keep the part that tells them apart, and a folded
#     table numbers rows its first column does not tell apart.
# `breakdown` keeps HTA's column names and microseconds on purpose (docs/units.md):
# its widths are checked, not its units. Under GPUPROF_ANCHOR_SWEEP=small (the
# sanitized half of CI) only the anchors under 1 MB are read (anchor_sweep), each at
# one of the three widths in turn (sweep_widths): the text code is the same C at every
# width, and the plain half checks every anchor at all three.
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto nsys
"$TRACEGEN" --seed 5 --steps 6 --kernels 40 --copies 2 --devices 2 --streams 2 --gap-ns 500000 \
	--nvtx-depth 2 -o gen.gpz >/dev/null || fail tracegen
find "$ANCHORS" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) \
	! -path '*/hta_reference/*' | sort >all.txt
[ "$(wc -l <all.txt)" -ge 10 ] || fail "too few anchors: $(cat all.txt)"
anchor_sweep <all.txt >inputs.txt
echo "$(pwd)/gen.gpz" >>inputs.txt

cat >check.py <<'PY'
import re, sys
sci = re.compile(r"\d[eE]\+\d\d")
bare_us = re.compile(r"(?<![µ\w])us\b")
mb3 = re.compile(r"\d\.\d{3} [KMGT]B\b")
rule = re.compile(r"^ *-+( +-+)* *$")
bad = []
for path in sys.argv[1:]:
    what = open(path + ".what").read().strip()
    cols = int(path.rsplit(".", 1)[1])
    units = not what.startswith("breakdown")
    lines = open(path, encoding="utf-8").read().split("\n")
    seen = None
    for n, line in enumerate(lines, 1):
        if len(line) > cols:
            bad.append(f"{what} at {cols}: line {n} has {len(line)} columns: {line}")
        if units and (sci.search(line) or bare_us.search(line) or mb3.search(line)):
            bad.append(f"{what} at {cols}: line {n} has a number without units: {line}")
        if rule.match(line):
            seen = {}
        elif not line.strip():
            seen = None
        elif seen is not None:
            if line in seen and "\u2026" in line:
                bad.append(f"{what} at {cols}: line {n} reads as line {seen[line]}: {line}")
            seen.setdefault(line, n)
print("\n".join(bad[:20]))
sys.exit(1 if bad else 0)
PY

cmds="report launches critical-path info gaps stats occupancy comm mfu breakdown ops memory"
i=0
while read -r f; do
	i=$((i + 1))
	g=$f
	case $f in
	*.gpz) ;;
	*) g=a$i.gpz; "$GPUPROF" convert "$f" "$g" >/dev/null 2>err || fail "convert $f: $(cat err)" ;;
	esac
	widths=$(sweep_widths $i)
	for cmd in $cmds; do
		for cols in $widths; do
			COLUMNS=$cols "$GPUPROF" $cmd "$g" >"o$i-$cmd.$cols" 2>err
			rc=$?
			[ $rc -le 1 ] || fail "$cmd $f: exit $rc: $(cat err)"
			echo "$cmd ${f#"$ANCHORS"/}" >"o$i-$cmd.$cols.what"
		done
	done
	rm -f "a$i.gpz"
done <inputs.txt
for cols in 80 100 120; do
	COLUMNS=$cols "$GPUPROF" diff gen.gpz -- gen.gpz >"o-diff.$cols" || fail "diff at $cols"
	echo diff >"o-diff.$cols.what"
done
set --
for out in o*.80 o*.100 o*.120; do
	[ -e "$out" ] && set -- "$@" "$out"
done
[ $# -ge $((12 * i + 3)) ] || fail "only $# outputs for $i inputs"
python3 check.py "$@" || fail "text over COLUMNS, numbers without units or rows that read the same"

# The checks can fail: a line too wide, a raw FLOP count, two rows alike once shortened.
printf 'Name\n----\nab\342\200\246cd\nab\342\200\246cd\n' >x.80
echo "report made-up" >x.80.what
python3 check.py x.80 >out && fail "two rows that read the same passed"
printf '%090d\n' 0 >y.80
echo "report made-up" >y.80.what
python3 check.py y.80 >out && fail "a 90-column line passed at 80"
echo "model FLOPs  2.36053e+11" >z.80
echo "mfu made-up" >z.80.what
python3 check.py z.80 >out && fail "a FLOP count in e+NN passed"

# stats fits 100 columns by default, every column kept (folded); --wide gives one block.
g=gen.gpz
COLUMNS=100 "$GPUPROF" stats "$g" >out || fail "stats"
grep -q 'StdDev' out || fail "stats: a column went missing: $(head -8 out)"
COLUMNS=100 "$GPUPROF" stats --wide "$g" >wide || fail "stats --wide"
[ "$(grep -c '^--' out)" -gt "$(grep -c '^--' wide)" ] ||
	fail "stats: folded and --wide have as many blocks: $(grep -c '^--' out)"
exit 0
