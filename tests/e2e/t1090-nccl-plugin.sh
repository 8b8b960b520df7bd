#!/bin/sh
# The NCCL profiler plugin, driven as NCCL 2.27 (v4), 2.28 (v5) and 2.29
# (v6) drive it, from 4 threads at once: one NCCL record per collective and
# send, one NCCL_CHANNEL record per kernel channel, fields as given, GPU
# channel times converted with their nanosecond durations intact, every
# channel tied to its operation; hostile input (PXN proxy events with a
# garbage parent, unknown event types, foreign handles) changes nothing.
. "$TOP/tests/fakecuda/e2e-lib.sh"
DRIVE=$B/tests/nccl-plugin-drive
[ -x "$DRIVE" ] || { echo "nccl-plugin-drive not built"; exit 77; }

for v in 4 5 6; do
	GPUPROF_OUTPUT="$PWD/p$v.gpz" "$DRIVE" -v $v -t 4 -n 60 -e p$v.exp "$LIB" 2>err.txt ||
		fail "v$v: exit $?: $(cat err.txt)"
	[ -s err.txt ] && fail "v$v: stderr: $(cat err.txt)"
	"$GPUPROF" dump --kind nccl,nccl_channel,loss "p$v.gpz" | grep -v '^#' >d$v.txt ||
		fail "v$v: dump"
	ops=$(sed -n 's/^ops //p' p$v.exp)
	chans=$(sed -n 's/^channels //p' p$v.exp)
	sends=$(sed -n 's/^send //p' p$v.exp)
	[ "$(grep -c '^nccl ' d$v.txt)" = "$ops" ] || fail "v$v: $(grep -c '^nccl ' d$v.txt) ops, not $ops"
	[ "$(grep -c '^nccl_channel ' d$v.txt)" = "$chans" ] || fail "v$v: channels"
	[ "$(grep -c 'func="Send"' d$v.txt)" = "$sends" ] || fail "v$v: sends"
	grep -q '^loss ' d$v.txt && fail "v$v: losses: $(grep '^loss' d$v.txt)"
	# thread 2's 7th AllReduce: every field as the descriptor gave it
	line=$(grep '^nccl .*func="AllReduce"' d$v.txt | grep ' seq=7 ' | grep 'comm_hash=3235774466 ')
	for want in 'count=7168 ' 'datatype=7 ' 'bytes=28672 ' 'rank=2 ' 'nranks=4 ' \
		'algorithm="RING"' 'protocol="LL"' 'channels=2 ' 'source=1 ' 'nodes=1 ' \
		'warps=16' 'comm_name="comm-2"'; do
		case $line in *"$want"*) ;; *) fail "v$v: '$want' missing in: $line" ;; esac
	done
	if [ $v -ge 5 ]; then
		case $line in *stream_handle=4098*) ;; *) fail "v$v: stream from CollApi: $line" ;; esac
		case $line in *external_id=*) ;; *) fail "v$v: no external id: $line" ;; esac
	fi
	# Send: peer, bytes of bf16, p2p flag
	grep '^nccl .*func="Send"' d$v.txt | grep 'comm_hash=3235774465 ' | head -n 1 |
		grep -q 'count=256 datatype=9 bytes=512 root=-1 peer=2 .*flags=4' ||
		fail "v$v: send fields: $(grep 'func="Send"' d$v.txt | head -n 1)"
	# channels: 5000 ns on the GPU each, both clocks; each names an op of the trace
	awk -v v=$v '
		/^nccl / { for (i = 2; i <= NF; i++) if ($i ~ /^op_id=/) op[substr($i, 7)] = 1 }
		/^nccl_channel / {
			s = e = gs = ge = id = ""
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "start") s = kv[2]; else if (kv[1] == "end") e = kv[2]
				else if (kv[1] == "gpu_start") gs = kv[2]; else if (kv[1] == "gpu_end") ge = kv[2]
				else if (kv[1] == "op_id") id = kv[2]
			}
			# globaltimer values pass 2^53: compare their low 9 digits (awk has doubles)
			gd = (substr(ge, length(ge) - 8) - substr(gs, length(gs) - 8) + 1e9) % 1e9
			if (e - s != 5000 || gd != 5000) { if (!bad) print "v" v ": channel duration: " $0; bad = 1 }
			ids[id] = 1
		}
		END { for (i in ids) if (!(i in op)) { if (!bad) print "v" v ": channel of unknown op " i; bad = 1 }
		      exit bad }' d$v.txt || fail "channels"
done
exit 0
