#!/bin/sh
# Every command that prints text, on every anchor (PyTorch profiler and nsys,
# each converted once) and a generated trace, off a terminal: every line fits 120 columns
# (characters, "µ" one) and no time is a raw nanosecond count ("431751801 ns"):
# human units scale past 999 ns. With --timeunit ns the exact counts come
# back (so the check can see them), and `info` gives the trace clock's
# readings only then.
. "$TOP/tests/e2e/lib.sh"

unset COLUMNS
need_anchors kineto nsys
"$TRACEGEN" --seed 5 --steps 6 --kernels 40 --copies 2 --devices 2 --streams 2 --gap-ns 500000 \
	--nvtx-depth 2 -o gen.gpz >/dev/null || fail tracegen
find "$ANCHORS" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) \
	! -path '*/hta_reference/*' | sort >inputs.txt
[ "$(wc -l <inputs.txt)" -ge 10 ] || fail "too few anchors: $(cat inputs.txt)"
echo "$(pwd)/gen.gpz" >>inputs.txt

# check.py FILE...: each file's name says what made it (NAME.txt beside NAME.what).
cat >check.py <<'PY'
import re, sys
raw = re.compile(r"(?<![\w.,])\d{4,} ns\b")
bad = []
for path in sys.argv[1:]:
    what = open(path[:-4] + ".what").read().strip() if path.endswith(".txt") else path
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if len(line) > 120:
            bad.append(f"{what}: line {n} has {len(line)} columns: {line[:130]}")
        if raw.search(line):
            bad.append(f"{what}: line {n} has a raw ns count: {line[:130]}")
        if "on the trace clock" in line:
            bad.append(f"{what}: line {n} shows clock readings: {line[:130]}")
if bad:
    print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
PY

# Each anchor is imported once (convert), then every command reads the .gpz: the
# same model as reading the anchor itself, without importing it ten times.
i=0
while read -r f; do
	i=$((i + 1))
	g=$f
	case $f in
	*.gpz) ;;
	*) g=a$i.gpz; "$GPUPROF" convert "$f" "$g" >/dev/null 2>err || fail "convert $f: $(cat err)" ;;
	esac
	for cmd in report launches critical-path info gaps stats occupancy comm mfu breakdown; do
		"$GPUPROF" $cmd "$g" >out 2>err
		rc=$?
		[ $rc -le 1 ] || fail "$cmd $f: exit $rc: $(cat err)"
		mv out "o-$i-$cmd.txt"
		echo "$cmd ${f#"$ANCHORS"/}" >"o-$i-$cmd.what"
	done
	rm -f "a$i.gpz"
done <inputs.txt
expect_rc 0 "$GPUPROF" diff gen.gpz -- gen.gpz
mv out o-diff.txt
echo diff >o-diff.what
python3 check.py o-*.txt || fail "text wider than 120 columns or with raw ns counts"

# The checks see exact counts: --timeunit ns brings them back.
expect_rc 0 "$GPUPROF" critical-path --timeunit ns gen.gpz
python3 check.py out >/dev/null && fail "no raw ns with --timeunit ns: $(head -3 out)"
grep -qE '^Critical path: 6 steps, [0-9]{4,} ns$' out || fail "critical-path --timeunit ns: $(head -1 out)"
expect_rc 0 "$GPUPROF" critical-path gen.gpz
grep -qE '^Critical path: 6 steps, [0-9.]+ (µs|ms|s)$' out || fail "critical-path: $(head -1 out)"
expect_rc 0 "$GPUPROF" info --timeunit ns gen.gpz
grep -qE '^  span +[0-9]+ ns \([0-9]+ to [0-9]+ ns on the trace clock\)$' out ||
	fail "info --timeunit ns: $(grep span out)"
expect_rc 0 "$GPUPROF" info gen.gpz
grep -qE '^  span +[0-9.]+ (µs|ms|s)$' out || fail "info: $(grep span out)"
# launches: kernel names fit (elided), copy bytes in binary units, counts separated.
expect_rc 0 "$GPUPROF" launches "$ANCHORS/kineto/hta/trace_diff/control/control.json.gz"
grep -q '…' out || fail "launches: no name elided"
grep -qE '^(Host-to-Device|Device-to-Host) +[0-9,]+ +[0-9.]+ (KiB|MiB|GiB) ' out ||
	fail "launches: copy bytes: $(grep -A4 '^Copy bandwidth' out)"
exit 0
