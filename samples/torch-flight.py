#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch-flight.py - a PyTorch training loop with one slowed step, for the
flight recorder's case in tests/gpu/run.sh (docs/flight-recorder.md).

Each step runs in an NVTX range "ProfilerStep#N"; step --slow also sleeps
--stall seconds inside an NVTX range "stall" before its optimizer step.
Prints "GT steps N", "GT slow_step N" and "GT stall_ms N".
"""
import argparse
import sys
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--slow", type=int, default=137)
    ap.add_argument("--stall", type=float, default=0.5)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch-flight: no CUDA device", file=sys.stderr)
        return 77
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)
    ).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    x = torch.randn(256, 1024, device=dev)
    y = torch.randn(256, 1024, device=dev)
    for i in range(args.steps):
        torch.cuda.nvtx.range_push("ProfilerStep#%d" % i)
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        if i == args.slow:
            torch.cuda.nvtx.range_push("stall")
            time.sleep(args.stall)
            torch.cuda.nvtx.range_pop()
        opt.step()
        loss.item()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print("GT steps %d" % args.steps)
    print("GT slow_step %d" % args.slow)
    print("GT stall_ms %d" % int(args.stall * 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
