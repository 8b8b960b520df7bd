#!/usr/bin/env python3
"""Writes a PyTorch-profiler (Kineto) JSON trace with a known allocation pattern.

Five ProfilerStep#k ranges, 1 ms apart. Before the trace 10 MiB are live on
cuda:0. In each step, in MiB:
  forward  aten::linear  +4 (activation, freed in backward)
           aten::relu    +1 -1
           aten::cat     +3 (never freed: grows 3 MiB per step)
  backward (autograd thread) AddmmBackward0 +8 (gradient), then -4
  optimizer Optimizer.step#SGD.step: aten::add_ +2 -2, then the gradient -8
Live at step k's end: 13 + 3k; the peak of step k: 25 + 3k, reached by the
gradient's allocation in backward; the global peak 37 MiB in step 4.
Reserved: 1 GiB throughout; the device has 48 MiB (a peak at 77%). --no-totals leaves out "Total Allocated" and
"Total Reserved" (PyTorch 1.8/1.9): the totals are rebuilt from 0.
"""
import json
import sys

MIB = 1 << 20


def main():
    totals = "--no-totals" not in sys.argv
    out = sys.argv[-1]
    ev = []
    state = {"live": 10 * MIB, "addr": 0x7F0000000000, "corr": 1}

    def us(ns):
        return float("%d.%03d" % (ns // 1000, ns % 1000))

    def rng(cat, name, tid, t0, t1, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid,
             "ts": us(t0), "dur": us(t1 - t0)}
        if args:
            e["args"] = args
        ev.append(e)

    def mem(tid, t, nbytes, addr):
        state["live"] += nbytes
        a = {"Device Type": 1, "Device Id": 0, "Addr": addr, "Bytes": nbytes}
        if totals:
            a["Total Allocated"] = state["live"]
            a["Total Reserved"] = 1024 * MIB
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                   "pid": 100, "tid": tid, "ts": us(t), "args": a})

    def alloc(tid, t, nbytes):
        state["addr"] += 0x10000000
        mem(tid, t, nbytes, state["addr"])
        return state["addr"]

    def launch(t):
        c = state["corr"]
        state["corr"] += 1
        rng("cuda_runtime", "cudaLaunchKernel", 1, t, t + 5000, {"correlation": c})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7,
                   "ts": us(t + 10000), "dur": us(30000),
                   "args": {"device": 0, "stream": 7, "correlation": c}})

    base = 1_000_000_000
    for k in range(5):
        s = base + k * 1_000_000
        rng("user_annotation", "ProfilerStep#%d" % k, 1, s, s + 900_000)
        rng("cpu_op", "aten::linear", 1, s + 10_000, s + 100_000)
        act = alloc(1, s + 20_000, 4 * MIB)
        launch(s + 50_000)
        rng("cpu_op", "aten::relu", 1, s + 110_000, s + 150_000)
        a = alloc(1, s + 120_000, 1 * MIB)
        mem(1, s + 140_000, -1 * MIB, a)
        rng("cpu_op", "aten::cat", 1, s + 160_000, s + 200_000)
        alloc(1, s + 170_000, 3 * MIB)
        rng("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 2,
            s + 300_000, s + 500_000)
        rng("cpu_op", "aten::mm", 2, s + 305_000, s + 400_000)
        grad = alloc(2, s + 310_000, 8 * MIB)
        mem(2, s + 450_000, -4 * MIB, act)
        rng("user_annotation", "Optimizer.step#SGD.step", 1, s + 600_000, s + 800_000)
        rng("cpu_op", "aten::add_", 1, s + 610_000, s + 700_000)
        a = alloc(1, s + 620_000, 2 * MIB)
        mem(1, s + 680_000, -2 * MIB, a)
        mem(1, s + 750_000, -8 * MIB, grad)
    doc = {"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 48 * MIB,
         "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
        "traceEvents": ev, "traceName": "mem"}
    with open(out, "w") as f:
        json.dump(doc, f)


main()
