#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch-step.py - a small PyTorch training step for tests/gpu/run.sh.

Warm-up steps first (cuBLAS and the caching allocator settle), then the
measured steps inside one NVTX range "measured", each step in an NVTX range
"step". With --torch-profiler the measured steps run under torch.profiler
and the CUDA kernels it saw are counted, so the GPU check can compare them
with what gpuprof recorded for the same steps (run separately: two CUPTI
clients cannot share a process).

Prints "GT nvtx step N" and, with --torch-profiler, "GT torch_kernels N".
"""
import argparse
import sys
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--torch-profiler", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch-step: no CUDA device", file=sys.stderr)
        return 77
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096),
        torch.nn.GELU(),
        torch.nn.Linear(4096, 1024),
        torch.nn.LayerNorm(1024),
    ).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    x = torch.randn(256, 1024, device=dev)
    y = torch.randn(256, 1024, device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()

    def measured():
        torch.cuda.nvtx.range_push("measured")
        for _ in range(args.steps):
            torch.cuda.nvtx.range_push("step")
            step()
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

    t0 = time.perf_counter()
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            measured()
        kernels = 0
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA and not e.name.startswith(
                ("Memcpy", "Memset")
            ):
                kernels += 1
        print(f"GT torch_kernels {kernels}")
    else:
        measured()
    t1 = time.perf_counter()
    print(f"torch-step: {args.steps} measured steps")
    print(f"GT nvtx step {args.steps}")
    print(f"GT loop_ms {(t1 - t0) * 1000:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
