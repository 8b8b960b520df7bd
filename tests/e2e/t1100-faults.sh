#!/bin/sh
# Faults while recording: full disk and I/O errors (a write shim), crashes
# of the program (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL), two and eight
# programs writing one name, `gpuprof record` naming what went wrong.
# The program's exit status never changes; loss is never silent.
# (SIGKILL at random moments: t1101.)
. "$TOP/tests/fakecuda/e2e-lib.sh"

SHIM=$B/tests/libfailwrite.so
[ -f "$SHIM" ] || { echo "write shim not built: skipped"; exit 77; }
# a preloaded library ahead of the sanitizers' runtime is fine here
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# ---- a full disk after 20 kB: nothing is said to be fine, the exit status stays
inject env LD_PRELOAD="$SHIM" FAILWRITE_AFTER=20000 GPUPROF_OUTPUT="$PWD/full.gpz" \
	"$LIFE" many 3000 >out.txt 2>err.txt
rc=$?
[ $rc = 0 ] || fail "ENOSPC: exit status $rc"
grep -q '^gpuprof: warning: .*full.gpz: [0-9]* records lost: writing the trace failed (No space left on device); the file ends at its last whole chunk$' err.txt ||
	fail "ENOSPC: stderr: $(cat err.txt)"
[ "$(grep -c gpuprof err.txt)" = 1 ] || fail "ENOSPC: more than one line: $(cat err.txt)"
lost=$(sed -n 's/.*: \([0-9]*\) records lost.*/\1/p' err.txt)
"$CHECK" stat full.gpz >stat.txt || fail "ENOSPC: unreadable"
grep -q '^problems 0$' stat.txt || fail "ENOSPC: corrupt chunks"
have=$(awk '$1 == "records" { n += $3 } END { print n + 0 }' stat.txt)
# 3000 iterations: a kernel, a memcpy, two API calls, one NVTX range each, plus metadata.
# Kept + lost = made, except on a loaded machine (sanitizers): buffers CUPTI still held
# 200 ms after the final flush are counted apart (cause deadline), in a LOSS record the
# full disk takes too.
[ $((have + lost)) -le 15010 ] || fail "ENOSPC: $have kept + $lost lost > 15010 made"
[ $((have + lost)) -ge 13500 ] || fail "ENOSPC: $have kept + $lost lost < 15000 made"

# ---- one EIO: the chunk it hit is lost and counted in the trace, the rest is kept
inject env LD_PRELOAD="$SHIM" FAILWRITE_AFTER=20000 FAILWRITE_ERRNO=EIO FAILWRITE_COUNT=1 \
	GPUPROF_FLUSH_MS=20 GPUPROF_OUTPUT="$PWD/eio.gpz" "$LIFE" -e eio.exp many 3000 \
	>out.txt 2>err.txt
[ $? = 0 ] || fail "EIO: exit status"
grep -q 'eio.gpz: [0-9]* records lost: writing the trace failed (Input/output error)$' err.txt ||
	fail "EIO: stderr: $(cat err.txt)"
lost=$(sed -n 's/.*: \([0-9]*\) records lost.*/\1/p' err.txt)
"$CHECK" stat eio.gpz >stat.txt || fail "EIO: unreadable"
grep -q '^footer yes$' stat.txt || fail "EIO: no footer"
grep -q "^loss writer $lost\$" stat.txt || fail "EIO: loss not in the trace: $(grep loss stat.txt)"
"$CHECK" compare eio.gpz eio.exp >cmp.txt 2>&1
missing=$(grep -c '^missing' cmp.txt)
[ "$missing" -le "$lost" ] || fail "EIO: $missing records missing, $lost counted"

# ---- gpuprof record names the cause, and never says "no drops" for a cut file
plain env LD_PRELOAD="$SHIM" FAILWRITE_AFTER=20000 "$GPUPROF" record -o rfull.gpz -- \
	"$LIFE" many 3000 >out.txt 2>err.txt
[ $? = 0 ] || fail "record ENOSPC: exit status"
grep -q 'rfull.gpz: .* dropped (write errors [0-9]*), cut short (no footer): more may be lost; writing the trace failed: No space left on device' err.txt ||
	fail "record ENOSPC: $(cat err.txt)"
[ "$(grep -c gpuprof err.txt)" = 1 ] || fail "record ENOSPC: stderr: $(cat err.txt)"
mkdir ro && chmod 555 ro
if [ ! -w ro ]; then
	plain "$GPUPROF" record -o ro/x.gpz -- "$LIFE" many 3 >out.txt 2>err.txt
	[ $? = 0 ] || fail "read-only folder: exit status"
	grep -q '^gpuprof: error: cannot create trace file .*ro/x.gpz: Permission denied$' err.txt ||
		fail "read-only folder: $(cat err.txt)"
	grep -q 'never initialized' err.txt && fail "read-only folder blamed on the program"
fi
plain "$GPUPROF" record -o deep/er/x.gpz -- "$LIFE" many 3 >out.txt 2>err.txt
grep -q '^gpuprof: error: cannot create trace file .*deep/er/x.gpz: No such file or directory$' \
	err.txt || fail "missing folders: $(cat err.txt)"
[ -e deep ] && fail "a tree of folders was created"
plain "$GPUPROF" record -o deep/er -- "$LIFE" many 3 >out.txt 2>err.txt
[ $? = 1 ] || fail "-o DIR below a missing folder: not refused"
grep -q 'cannot create directory .*deep/er: .*deep does not exist' err.txt || fail "$(cat err.txt)"
plain "$GPUPROF" record -o one/x.gpz -- "$LIFE" many 3 >out.txt 2>err.txt
[ -f one/x.gpz ] || fail "the trace's own folder is not created: $(cat err.txt)"

# ---- a footerless file without a counted loss: the loss is unknown, and said so
cd one
env LD_LIBRARY_PATH="$FAKE" "$GPUPROF" record -o k.gpz -- "$LIFE" stream >/dev/null 2>../err.txt &
rec=$!
cd ..
i=0
while [ $i -lt 50 ] && [ ! -s one/k.gpz ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
# the program is record's child
for st in /proc/[0-9]*/stat; do
	set -- $(sed 's/.*) //' "$st" 2>/dev/null)
	[ "${2:-}" = $rec ] && p=${st#/proc/} && kill -KILL "${p%/stat}" 2>/dev/null
done
wait $rec
grep -q 'k.gpz: .* events over .* s, losses unknown, cut short (no footer)' err.txt ||
	fail "killed: $(cat err.txt)"

# ---- crashes within the first flush period keep every record made before them
for sig in SEGV ABRT BUS FPE ILL; do
	for own in "" -H; do
		rm -f c.gpz c.exp
		inject env GPUPROF_OUTPUT="$PWD/c.gpz" "$LIFE" $own -e c.exp crash $sig \
			>out.txt 2>err.txt
		rc=$?
		plain "$LIFE" $own crash $sig >/dev/null 2>&1
		want=$?
		[ $rc = $want ] || fail "$sig$own: exit status $rc, not $want"
		# under AddressSanitizer its own SIGSEGV handler ends the program
		[ $want -gt 128 ] || continue
		[ "$(stat_val c.gpz footer)" = yes ] || fail "$sig$own: no footer"
		[ "$(stat_val c.gpz process-exit)" = $rc ] || fail "$sig$own: exit not recorded"
		"$CHECK" compare c.gpz c.exp >/dev/null || fail "$sig$own: records missing"
		if [ -n "$own" ]; then
			grep -q 'life: own handler' err.txt || fail "$sig: the program's handler not run"
		fi
		grep -q gpuprof err.txt && fail "$sig$own: stderr: $(cat err.txt)"
	done
done

# ---- two and eight programs writing one name: each keeps a whole trace of its own
for n in 2 8; do
	rm -rf w && mkdir w
	i=0
	while [ $i -lt $n ]; do
		inject env GPUPROF_OUTPUT="$PWD/w/same.gpz" "$LIFE" -e w/$i.exp many 300 \
			>/dev/null 2>w/err$i.txt &
		i=$((i + 1))
	done
	wait
	[ "$(ls w/*.gpz | wc -l)" = $n ] || fail "$n writers: $(ls w)"
	[ "$(cat w/err*.txt | grep -c 'same.gpz exists; this trace is .*same\.[0-9]*\.gpz$')" = \
		$((n - 1)) ] || fail "$n writers: stderr: $(cat w/err*.txt)"
	for t in w/*.gpz; do
		"$CHECK" stat "$t" >stat.txt || fail "$t unreadable"
		grep -q '^footer yes$' stat.txt || fail "$n writers: $t has no footer"
		grep -q '^problems 0$' stat.txt || fail "$n writers: $t corrupt"
		grep -q '^kernel many 300$' stat.txt || fail "$n writers: $t: $(grep kernel stat.txt)"
		ok=0
		for e in w/*.exp; do
			"$CHECK" compare "$t" "$e" >/dev/null 2>&1 && ok=$((ok + 1))
		done
		[ $ok = 1 ] || fail "$n writers: $t matches $ok programs' records"
	done
done
exit 0
