#!/bin/sh
# gpuprof record --backtrace: the CPU call stacks of launches made from known
# functions, symbolized through gpa_api_stack_frame (stack-frames), for a
# program built with and without frame pointers and both capture methods;
# the raw records in gpuprof dump; no stacks without the option.
. "$TOP/tests/fakecuda/e2e-lib.sh"
FRAMES=$B/tests/stack-frames
[ -x "$FRAMES" ] && [ -x "$B/tests/bt-prog-fp" ] || { echo "stack test programs not built"; exit 77; }

chain='main;bt_level1;bt_level2;bt_level3;bt_launch;sim_launch'
copy='main;ns::Worker::copy(int);sim_memcpy'

# record PROGRAM METHOD DEPTH: trace in $1-$2.gpz, frames in $1-$2.txt
record() {
	rm -f "$1-$2.gpz" # a trace is never written over
	plain "$GPUPROF" record -o "$1-$2.gpz" --backtrace="$3" --backtrace-method="$2" \
		-- "$B/tests/bt-prog-$1" 3 >"$1-$2.out" 2>"$1-$2.err" || fail "$1 $2: $(cat "$1-$2.err")"
	"$FRAMES" "$1-$2.gpz" >"$1-$2.txt" || fail "$1 $2: stack-frames failed"
}
# frames_of FILE KIND: the frames of the call the program printed as "stack KIND CORR"
frames_of() {
	corr=$(sed -n "s/^stack $2 //p" "${1%.txt}.out")
	awk -v c="$corr" '$1 == c { print $4 }' "$1"
}
have_unwind() {
	grep -q 'method=2' "$1" 2>/dev/null
}

# libunwind (DWARF CFI): the whole chain, with or without frame pointers
for p in fp nofp; do
	record $p unwind 16
	"$GPUPROF" dump --kind stack $p-unwind.gpz >$p-unwind.dump || fail "dump $p"
	if ! have_unwind $p-unwind.dump; then
		echo "libunwind.so.8 not loadable here: the unwind method fell back to frame pointers"
		continue
	fi
	f=$(frames_of $p-unwind.txt launch)
	case "$f" in *"$chain;"*) ;; *) fail "$p unwind launch: '$f'" ;; esac
	case "$f" in *_start*__libc_start_main*main*) ;; *) fail "$p unwind outer frames: '$f'" ;; esac
	f=$(frames_of $p-unwind.txt copy)
	case "$f" in *"$copy;"*) ;; *) fail "$p unwind copy: '$f'" ;; esac
	# 41 nested calls: cut at 16, the innermost kept
	f=$(frames_of $p-unwind.txt deep)
	[ "$(echo "$f" | tr ';' '\n' | wc -l)" = 16 ] || fail "$p unwind deep: '$f'"
	case "$f" in "bt_recurse;bt_recurse;"*"bt_recurse;bt_launch;sim_launch;"*) ;;
	*) fail "$p unwind deep frames: '$f'" ;; esac
	grep -q "^stack .* depth=16 flags=1 method=2" $p-unwind.dump || fail "$p: cut flag"
done

# frame pointers: the whole chain when the program keeps them ...
record fp fp 16
f=$(frames_of fp-fp.txt launch)
case "$f" in *"$chain;"*) ;; *) fail "fp fp launch: '$f'" ;; esac
f16=$f
f=$(frames_of fp-fp.txt copy)
case "$f" in *"$copy;"*) ;; *) fail "fp fp copy: '$f'" ;; esac
# ... and only up to the first function without them otherwise
record nofp fp 16
f=$(frames_of nofp-fp.txt launch)
case "$f" in bt_launch\;sim_launch\;*) ;; *) fail "nofp fp launch: '$f'" ;; esac
case "$f" in *bt_level*|*main*) fail "nofp fp: frames beyond a frame without a pointer: '$f'" ;; esac

# the raw records: one stack per launch-like call, nodes, modules with build-ids
"$GPUPROF" dump fp-fp.gpz >fp-fp.dump || fail "dump"
[ "$(grep -c '^stack ' fp-fp.dump)" = 5 ] || fail "stack records: $(grep -c '^stack ' fp-fp.dump)"
[ "$(grep -c '^stack ts=.* method=1' fp-fp.dump)" = 5 ] || fail "method field"
grep -q '^stack_node id=1 pc=' fp-fp.dump || fail "no stack_node records"
grep -q '^module .*path=".*/bt-prog-fp" .*build_id="[0-9a-f]*"' fp-fp.dump || fail "module record"
api=$(grep -c '^api ' fp-fp.dump)
[ "$api" = 5 ] || fail "api records: $api"
info=$(sed -n 's/^info //p' fp-fp.txt)
case "$info" in *"stacks=5 "*"api_rows=5 "*"bad_nodes=0 bad_parents=0 bad_stacks=0 bad_modules=0 unreadable=0 mismatch=0") ;;
*) fail "info: $info" ;; esac
"$GPUPROF" info fp-fp.gpz | tr -s ' \n' ' ' | grep -q 'stack_node [0-9]*, stack 5, module' || fail "info records"

# the depth limit travels: 4 frames
record fp fp 4
f=$(frames_of fp-fp.txt launch)
[ "$(echo "$f" | tr ';' '\n' | wc -l)" = 4 ] || fail "depth 4: '$f'"
# the innermost four of the same call recorded at depth 16 (how many of them are the fake
# CUDA library's own frames depends on what the compiler inlined)
inner4=$(echo "$f16" | tr ';' '\n' | tail -n 4 | paste -sd ';')
[ "$f" = "$inner4" ] || fail "depth 4 keeps the innermost frames: '$f', not '$inner4'"

# 8 threads launching at once: every call has its stack, one chain per thread
# function, interned once (the same nodes whatever thread made them)
for m in fp unwind; do
	plain "$GPUPROF" record -o thr-$m.gpz --backtrace --backtrace-method=$m \
		-- "$B/tests/bt-prog-fp" -t 8 3000 >thr.out 2>thr.err || fail "threads $m: $(cat thr.err)"
	grep -q "thr-$m.gpz: .* no drops" thr.err || fail "threads $m: $(cat thr.err)"
	"$FRAMES" thr-$m.gpz >thr.txt || fail "threads $m: stack-frames"
	[ "$(grep -c ";bt_thread;bt_level1;bt_level2;bt_level3;bt_launch;sim_launch;" thr.txt)" = 24000 ] ||
		fail "threads $m: $(awk '{ print $4 }' thr.txt | sort | uniq -c | head -3)"
	case "$(sed -n 's/^info //p' thr.txt)" in *"stacks=24000 "*"api_rows=24000 bad_nodes=0 "*) ;;
	*) fail "threads $m: $(tail -n 1 thr.txt)" ;; esac
	nodes=$("$GPUPROF" dump --kind stack_node thr-$m.gpz | grep -c '^stack_node')
	[ "$nodes" -le 16 ] || fail "threads $m: $nodes nodes for one chain"
done

# without the option: no stack records at all
plain "$GPUPROF" record -o none.gpz -- "$B/tests/bt-prog-fp" 3 >/dev/null 2>&1 || fail "plain run"
"$GPUPROF" dump none.gpz | grep -q '^stack' && fail "stacks recorded without --backtrace"

# usage errors
"$GPUPROF" record --backtrace=65 -- true >/dev/null 2>&1
[ $? = 2 ] || fail "--backtrace=65 accepted"
"$GPUPROF" record --backtrace=x -- true >/dev/null 2>&1
[ $? = 2 ] || fail "--backtrace=x accepted"
"$GPUPROF" record --backtrace-method=dwarf -- true >/dev/null 2>&1
[ $? = 2 ] || fail "--backtrace-method=dwarf accepted"
# a bad setting in the environment: the default is used and the trace says so
inject env GPUPROF_OUTPUT=env.gpz GPUPROF_BACKTRACE=999 "$B/tests/bt-prog-fp" 1 >/dev/null 2>&1
"$GPUPROF" info env.gpz | grep -q 'bad GPUPROF_BACKTRACE="999"' || fail "bad setting not reported"
exit 0
