#!/bin/sh
# Every mangled kernel name the simulated CUDA stack (the demo's training loop,
# the scenario runner) and the trace generator produce is a well-formed Itanium
# name: the project's demangler (and c++filt, where binutils is installed)
# turns each into a readable one, so the demo's first report shows real names.
. "$TOP/tests/fakecuda/e2e-lib.sh"

inject env GPUPROF_OUTPUT="$PWD/demo.gpz" "$B/tests/demo-train" 2 >out.txt 2>err.txt ||
	fail "demo-train: exit $?: $(cat err.txt)"
inject env GPUPROF_OUTPUT="$PWD/sim.gpz" "$RUN" -s 3 "$SCEN/full.txt" >out.txt 2>err.txt ||
	fail "fakecuda-run: exit $?: $(cat err.txt)"
"$TRACEGEN" --seed 5 -o gen.gpz >/dev/null 2>err.txt || fail "tracegen: $(cat err.txt)"
for t in demo sim gen; do
	"$CHECK" stat $t.gpz >stat-$t.txt || fail "$t: unreadable"
	sed -n 's/^kernel \(.*\) [0-9][0-9]*$/\1/p' stat-$t.txt >names-$t.txt
	n=$(grep -c '^_Z' names-$t.txt)
	[ "$n" -ge 3 ] || fail "$t: only $n mangled names: $(cat names-$t.txt)"
done
sort -u names-*.txt >names.txt
"$B/tests/demangle" <names.txt >dem.txt || fail "$(grep 'not demangled' dem.txt)"
if command -v c++filt >/dev/null 2>&1; then
	grep '^_Z' names.txt | while IFS= read -r n; do
		d=$(printf '%s\n' "$n" | c++filt)
		[ "$d" != "$n" ] || echo "$n"
	done >cxx-bad.txt
	[ ! -s cxx-bad.txt ] || fail "c++filt rejects: $(cat cxx-bad.txt)"
fi
# The symptom as a user meets it: the demo's attention kernels by their short names.
"$GPUPROF" stats --kernel-name short -f csv demo.gpz >short.csv || fail "stats: exit $?"
grep -q 'flash_bwd_kernel_bf16_hdim128' short.csv || fail "short names: $(cat short.csv)"
grep -q '_Z' short.csv && fail "mangled names left: $(grep _Z short.csv)"
exit 0
