#!/bin/sh
# gpuprof info and dump read what every other command reads: a PyTorch profiler
# (Kineto) JSON or an nsys SQLite export is imported first. info names the
# source format; both show the same records as the .gpz `gpuprof convert` writes.
. "$TOP/tests/e2e/lib.sh"

need_anchors kineto/hta/trace_diff/control/control.json.gz \
	nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
k=$ANCHORS/kineto/hta/trace_diff/control/control.json.gz
n=$ANCHORS/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite

for f in "$k" "$n"; do
	case $f in
	*.sqlite) src=nsys title="Nsight Systems SQLite export" ;;
	*) src=kineto title="PyTorch profiler (Kineto) JSON" ;;
	esac
	expect_rc 0 "$GPUPROF" convert "$f" c.gpz
	# info: the source format, then the converted trace's figures.
	expect_rc 0 "$GPUPROF" info "$f"
	[ -s err ] && fail "info $f: unexpected stderr: $(cat err)"
	head -n 2 out | grep -q "^  source      $title, imported" || fail "info $f: $(head -n 3 out)"
	grep -E '^  (events|records|span|devices) ' out >imp.txt
	expect_rc 0 "$GPUPROF" info c.gpz
	grep -E '^  (events|records|span|devices) ' out >conv.txt
	[ -s conv.txt ] || fail "info c.gpz shows no records"
	cmp -s imp.txt conv.txt || { diff imp.txt conv.txt; fail "info $f differs from its conversion"; }
	expect_rc 0 "$GPUPROF" info --json "$f"
	python3 -c 'import json,sys; f=json.load(open("out"))["files"][0]; sys.exit(f["source"] != sys.argv[1] or f["events"] == 0)' \
		"$src" || fail "info --json $f: $(head -c 300 out)"
	expect_rc 0 "$GPUPROF" info --json c.gpz
	grep -q '"source":"gpz"' out || fail "info --json c.gpz: no source gpz"
	# dump: every record, the same as the conversion's.
	expect_rc 0 "$GPUPROF" dump --json "$f"
	[ -s err ] && fail "dump $f: unexpected stderr: $(cat err)"
	mv out imp.jsonl
	expect_rc 0 "$GPUPROF" dump --json c.gpz
	[ "$(grep -c '"kind":"kernel"' imp.jsonl)" -gt 0 ] || fail "dump $f: no kernel"
	# The same records; chunks (of another size) may interleave the kinds otherwise.
	sort imp.jsonl >a.sorted
	sort out >b.sorted
	cmp -s a.sorted b.sorted || fail "dump $f differs from the dump of its conversion"
	expect_rc 0 "$GPUPROF" dump --kind kernel "$f"
	grep -q '^kernel start=' out || fail "dump --kind kernel $f: $(head -n 3 out)"
	rm -f c.gpz
done

# What is neither fails with one plain line naming the formats read.
echo junk >j.gpz
expect_rc 1 "$GPUPROF" info j.gpz
grep -q "j.gpz: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite file" err || fail "info j.gpz: $(cat err)"
expect_rc 1 "$GPUPROF" dump j.gpz
grep -q "j.gpz: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite file" err || fail "dump j.gpz: $(cat err)"
exit 0
