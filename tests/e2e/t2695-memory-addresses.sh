#!/bin/sh
# gpuprof memory against an independent count (python3) on a generated
# PyTorch-profiler trace that works the live-address bookkeeping hard: two
# devices, no totals (rebuilt from the sizes), up to 3,000 allocations live
# at once on each, addresses released and reused in random order, releases
# of addresses never allocated, events written out of time order. Per device:
# the event count, the peak of allocated bytes, the bytes and allocations
# still live at the peak (owners with --top all, less the part the trace
# cannot place), and per step the allocations, their bytes and those freed
# inside the step.
. "$TOP/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || exit 77

python3 - <<'PY' || fail "generator"
import json, random
R = random.Random(2695)
STEP, NSTEP = 1_000_000, 6
ev, truth = [], {}

def us(ns):
    return float("%d.%03d" % (ns // 1000, ns % 1000))

for k in range(NSTEP):
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % k, "pid": 1,
               "tid": 1, "ts": us(10**9 + k * STEP), "dur": us(STEP - 1000)})
t = 10**9
for dev in (0, 1):
    live, free_addrs, t = {}, list(range(1, 200_000)), 10**9 + 5 + dev
    R.shuffle(free_addrs)
    while t < 10**9 + NSTEP * STEP - 2000:
        t += R.randint(1, 200) * 2  # devices on odd and even ns: no ties
        # steps alternate between building up 3,000 live allocations and releasing them
        grow = len(live) < (3000 if (t - 10**9) // STEP % 2 == 0 else 20)
        if live and (not grow or R.random() < 0.2):
            a = R.choice(list(live)) if R.random() < 0.02 else next(iter(live))
            b = live.pop(a)
            free_addrs.append(a)
            ev.append((t, dev, -b, a))
        elif R.random() < 0.01:
            ev.append((t, dev, -4096, 0x9000000000 + t))  # never allocated
        else:
            a = free_addrs.pop(R.randrange(len(free_addrs)))
            live[a] = 512 * R.randint(1, 4000)
            ev.append((t, dev, live[a], a))
mem = [e for e in ev if isinstance(e, tuple)]
out = [e for e in ev if not isinstance(e, tuple)]
for (t, dev, b, a) in mem:
    out.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1,
                "tid": 1, "ts": us(t),
                "args": {"Device Type": 1, "Device Id": dev, "Addr": 0x7f0000000000 + a * 4096,
                         "Bytes": b}})
R.shuffle(out)
json.dump({"schemaVersion": 1, "traceEvents": out}, open("a.json", "w"))

# the expected figures, by time
steps = [(10**9 + k * STEP, 10**9 + k * STEP + STEP - 1000) for k in range(NSTEP)]
def step_of(t):
    for k, (s, e) in enumerate(steps):
        if s <= t <= e:
            return k
    return None
exp = {}
for dev in (0, 1):
    evs = sorted(e for e in mem if e[1] == dev)
    cur, peak, live, at_peak = 0, -1, {}, None
    st = [[0, 0, 0, 0] for _ in steps]
    for (t, _, b, a) in evs:
        addr = 0x7f0000000000 + a * 4096
        if b > 0:
            cur += b
            live[addr] = (b, t)
            k = step_of(t)
            if k is not None:
                st[k][0] += 1
                st[k][1] += b
        else:
            cur = max(cur - (-b), 0)
            if addr in live:
                ab, at = live.pop(addr)
                k = step_of(at)
                if k is not None and t <= steps[k][1]:
                    st[k][2] += 1
                    st[k][3] += ab
        if cur > peak:
            peak = cur
            at_peak = (sum(v[0] for v in live.values()), len(live))
    exp["cuda:%d" % dev] = {"events": len(evs), "peak": peak, "live": at_peak[0],
                            "count": at_peak[1], "steps": st}
json.dump(exp, open("exp.json", "w"))
PY

expect_rc 0 "$GPUPROF" memory --format json --top all a.json
python3 - <<'PY' || fail "memory figures against the independent count"
import json
exp = json.load(open("exp.json"))
got = json.load(open("out"))
devs = {d["device"]: d for d in got["devices"]}
assert set(devs) == set(exp), (set(devs), set(exp))
for name, e in exp.items():
    d = devs[name]
    assert d["events"] == e["events"], (name, d["events"], e["events"])
    assert d["peak_allocated_bytes"] == e["peak"], (name, d["peak_allocated_bytes"], e["peak"])
    assert d["totals"] == "rebuilt", d
    own = [o for o in got["owners"] if o["device"] == name]
    placed = [o for o in own if not o["allocated_by"].startswith("(allocated before")]
    assert sum(o["bytes"] for o in placed) == e["live"], (name, placed, e["live"])
    assert sum(o["allocations"] for o in placed) == e["count"], (name, placed, e["count"])
    st = [s for s in got["steps"] if s["device"] == name]
    assert len(st) == len(e["steps"]), (name, len(st))
    for s, (n, b, fn, fb) in zip(st, e["steps"]):
        assert (s["allocations"], s["allocated_bytes"]) == (n, b), (name, s, n, b)
        assert (s["freed_in_step"], s["freed_in_step_bytes"]) == (fn, fb), (name, s, fn, fb)
    assert e["count"] > 1000, e  # the live set outgrew the first address table
PY
exit 0
