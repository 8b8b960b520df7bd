#!/bin/sh
# More NCCL operations in flight than the plugin's event table holds: the
# ones that fit are recorded, the rest counted as lost (nccl-buffer-full),
# and together they are every operation; the program is not disturbed.
. "$TOP/tests/fakecuda/e2e-lib.sh"
DRIVE=$B/tests/nccl-plugin-drive
[ -x "$DRIVE" ] || { echo "nccl-plugin-drive not built"; exit 77; }

GPUPROF_OUTPUT="$PWD/x.gpz" "$DRIVE" -x 20000 -e x.exp "$LIB" 2>err.txt ||
	fail "exit $?: $(cat err.txt)"
got=$("$GPUPROF" dump --kind nccl x.gpz | grep -c '^nccl ')
lost=$("$GPUPROF" dump --kind loss x.gpz | sed -n 's/^loss .*cause=4 count=\([0-9]*\).*/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
[ "$lost" -gt 0 ] || fail "no loss counted ($got recorded)"
[ "$got" -gt 0 ] || fail "nothing recorded"
[ $((got + lost)) = 20000 ] || fail "$got recorded + $lost lost != 20000"
"$GPUPROF" info x.gpz | grep -q 'nccl-buffer-full' || fail "info does not show the loss"
exit 0
