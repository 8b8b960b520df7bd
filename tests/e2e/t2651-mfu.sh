#!/bin/sh
# gpuprof mfu and gpuprof devices: the arithmetic seen through the CLI, and
# every bad parameter or device file gives a one-line error and exit 2 / 1.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 3 --kernels 8 --copies 2 --devices 2 -o a.gpz >/dev/null ||
	fail "tracegen"

expect_rc 0 "$GPUPROF" devices --format json
python3 - <<'PY' || fail "device table"
import json
d = json.load(open("out"))["devices"]
assert len(d) >= 18, len(d)
h = [r for r in d if r["key"] == "h100_sxm"][0]
assert h["bf16_fp16_tflop_per_s"] == 989.5 and h["memory_gb_per_s"] == 3350, h
assert any(r["verify"] == "yes" for r in d)
PY

# 2 GPUs (H200 in the generator), FLOPs per step F: MFU = F / wall / (2 x 989.5e12).
expect_rc 0 "$GPUPROF" mfu --format json --flops-per-step 1e12 --bytes-per-step 4.8e9 a.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
python3 - <<'PY' || fail "mfu arithmetic"
import json
d = json.load(open("out"))
u = {r["metric"]: r["value"] for r in d["utilization"]}
assert u["device"].startswith("H200 SXM 141GB (table"), u
assert u["GPUs"] == "2"
for s in d["steps"]:
    w = s["wall_ns"] / 1e9
    assert abs(s["mfu_pct"] - 1e12 / w / (2 * 989.5e12) * 100) < 0.006, s
    assert abs(s["mbu_pct"] - 4.8e9 / w / (2 * 4800e9) * 100) < 0.006, s
for c in d["copies"]:
    assert abs(c["achieved_gb_per_s"] - c["bytes"] / c["time_ns"]) < 0.0006, c
    # kinds by name, as nsys shows them
    assert c["kind"] in ("Host-to-Device", "Device-to-Host", "Device-to-Device", "Host-to-Host",
                         "Peer-to-Peer"), c
    assert c["from"] in ("Pageable", "Pinned", "Device", "Managed") and c["to"] in ("Pageable", "Pinned", "Device", "Managed"), c
assert d["copies"], "no copies"
PY
# (6 x 7e9 + 12 x 32 x 4096 x 2048) x 4096 = 1.85226e14; (8N + 16LhT) x 4096 = 2.46968e14.
# On the 2 GPUs of the generated trace's short steps that is far over 100 %: refused,
# naming the GPU count as the likely cause; for a job of 1024 GPUs it is fine.
expect_rc 2 "$GPUPROF" mfu --params 7e9 --tokens-per-step 4096 --attention --layers 32 \
	--hidden 4096 --seq-len 2048 --recompute --format csv a.gpz
grep -q 'HFU of [0-9.]* % is over 100 %: .* more GPUs than the 2 that did work' err ||
	fail "over 100 % not refused: $(cat err)"
expect_rc 0 "$GPUPROF" mfu --params 7e9 --tokens-per-step 4096 --attention --layers 32 \
	--hidden 4096 --seq-len 2048 --recompute --gpus 1024 --format csv a.gpz
grep -q '^model FLOPs per step,1.85226e+14$' out || fail "model FLOPs: $(grep FLOPs out)"
grep -q '^hardware FLOPs per step,2.46968e+14$' out || fail "hardware FLOPs: $(grep FLOPs out)"

for bad in "--flops-per-step 0" "--flops-per-step -1" "--flops-per-step nan" \
	"--flops-per-step 1e40" "--peak-tflops 0" "--peak-bw inf" "--gpus 0" "--gpus 1.5" \
	"--dtype fp12" "--params 7e9" "--params 7e9 --tokens-per-step 10 --attention" \
	"--flops-per-step 1e12 --params 7e9 --tokens-per-step 1" "--device nope --flops-per-step 1"; do
	# shellcheck disable=SC2086
	expect_rc 2 "$GPUPROF" mfu $bad a.gpz
	[ "$(grep -c 'error' err)" -eq 1 ] || fail "$bad: $(cat err)"
done
printf 'name=x bf16=-3\n' >bad.dev
expect_rc 1 "$GPUPROF" mfu --device-file bad.dev --flops-per-step 1e12 a.gpz
grep -q 'bad.dev:1: peak TFLOP/s must be a number' err || fail "device file error: $(cat err)"
expect_rc 1 "$GPUPROF" devices --device-file missing.dev
printf 'name="Lab GPU" match="H200" cc=9.0 bf16=100 mem_bw=1000\n' >lab.dev
expect_rc 0 "$GPUPROF" mfu --device-file lab.dev --flops-per-step 1e11 --format csv a.gpz
grep -q '^device,Lab GPU (device file)$' out || fail "user row not used: $(head -5 out)"
expect_rc 0 "$GPUPROF" devices --device-file lab.dev --format csv
sed -n 2p out | grep -q '^Lab GPU,Lab GPU,9.0' || fail "user row not listed first"
exit 0
