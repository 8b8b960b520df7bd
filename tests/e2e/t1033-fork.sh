#!/bin/sh
# fork: the child gets its own file with its own ranges (CUDA cannot be
# used after fork); GPUPROF_FORK=off gives the child none.
. "$TOP/tests/fakecuda/e2e-lib.sh"
# GCC 12's AddressSanitizer does not hold its allocator across fork: a
# child of a multi-threaded parent can deadlock in malloc (glibc's can't).
if ldd "$LIFE" 2>/dev/null | grep -q libasan; then
	echo "fork with AddressSanitizer: skipped"
	exit 77
fi

mkdir on off
inject env GPUPROF_OUTPUT="$PWD/on/t-%p.gpz" "$LIFE" fork >out.txt 2>err.txt || fail "exit $?"
[ -s err.txt ] && fail "stderr: $(cat err.txt)"
set -- on/*.gpz
[ $# = 2 ] || fail "files: $*"
parent= child=
for f in "$@"; do
	if [ -n "$(stat_val $f 'nvtx child_range')" ]; then child=$f; else parent=$f; fi
done
[ -n "$child" ] && [ -n "$parent" ] || fail "no child or parent file"
[ "$(stat_val $child 'nvtx child_range')" = 3 ] || fail "child ranges"
[ "$(stat_val $child 'nvtx child_mark')" = 3 ] || fail "child marks"
[ -z "$(stat_val $child 'nvtx parent_before')" ] || fail "parent's ranges in the child's file"
[ "$(stat_val $child footer)" = yes ] || fail "child: no footer"
stat_val $child status | grep -q 'forked child' || fail "child status"
[ "$(stat_val $parent 'kernel parent_before')" = 10 ] || fail "parent kernels before"
[ "$(stat_val $parent 'kernel parent_after')" = 10 ] || fail "parent kernels after"
[ -z "$(stat_val $parent 'nvtx child_range')" ] || fail "child's ranges in the parent's file"

inject env GPUPROF_FORK=off GPUPROF_OUTPUT="$PWD/off/t-%p.gpz" "$LIFE" fork >out.txt 2>&1 ||
	fail "off: exit $?"
set -- off/*.gpz
[ $# = 1 ] || fail "GPUPROF_FORK=off: files: $*"
exit 0
