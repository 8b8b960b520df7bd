"""The gpuprof Python module against the command (docs/python.md).

Every analysis's tables equal the command's JSON on every anchor; the model's
tables agree with the report's counts; memory comes back after 1,000 opens; a
bad file raises the command's message.
"""
import gc
import json
import os

import numpy as np
import pandas as pd
import pytest

import gpuprof
from conftest import ANCHORS as ANCHORS_DIR, anchor_files, cli, need_anchors

ANALYSES = [("report", "report"), ("gaps", "gaps"), ("critical-path", "critical_path"),
            ("ops", "ops"), ("memory", "memory"), ("breakdown", "breakdown")]
COMPAT = ["hta", "hta-noround"]


def frames_equal(doc, result):
    """Each top-level array of objects of doc is a table of result, equal as a DataFrame."""
    tables = {k: v for k, v in doc.items()
              if isinstance(v, list) and v and all(isinstance(r, dict) for r in v)}
    assert sorted(tables) == sorted(result)
    for key, rows in tables.items():
        pd.testing.assert_frame_equal(result[key], pd.DataFrame(rows), check_exact=True)


@pytest.mark.parametrize("anchor", anchor_files() or ["(no anchors)"])
def test_anchor_tables_equal_the_command(anchor):
    need_anchors()
    with gpuprof.open(anchor) as t:
        for command, method in ANALYSES:
            out, err, status = cli(command, "--format", "json", anchor)
            assert status == 0, err
            res = getattr(t, method)()
            # the same renderer wrote both: the same bytes, and so the same tables
            assert res.json == out, f"{command} of {anchor}"
            frames_equal(json.loads(out), res)
            # the modes only set the command's flags: the anchors under 1 MB show they do
            if method == "breakdown" and os.path.getsize(anchor) < 1 << 20:
                for mode in COMPAT:
                    out, err, status = cli(command, "--compat", mode, "--format", "json", anchor)
                    assert status == 0, err
                    assert t.breakdown(compat=mode).json == out, f"{command} {mode} of {anchor}"
            if method == "report":
                traced = res.doc["traced"]
                k = t.kernels
                assert k.rows == traced["kernels"]
                assert int(k["dur"].sum()) == traced["kernel_time_ns"]
                assert t.api.rows == traced["api_calls"]
                assert t.copies.rows == traced["copies"]
                assert t.memsets.rows == traced["memsets"]
                assert t.nvtx.rows == traced["nvtx_ranges"]
                assert t.steps.rows == len(res.doc["steps"])


DIFF_PAIRS = [("kineto/hta/trace_diff/control/control.json.gz", "kineto/hta/trace_diff/test/test.json.gz"),
              ("kineto/hta/trace_compare/base/base.json.gz", "kineto/hta/trace_compare/test/test.json.gz"),
              ("nsys/mfu_2gpu_before.sqlite", "nsys/mfu_2gpu_after.sqlite")]


@pytest.mark.parametrize("pair", DIFF_PAIRS)
def test_diff_equals_the_command(pair, tmp_path):
    need_anchors()
    from conftest import ANCHORS
    base, cand = (os.path.join(ANCHORS, p) for p in pair)
    out = tmp_path / "diff.json"
    _, err, status = cli("diff", "--quiet", "--json", str(out), base, "--", cand)
    assert status in (0, 3), err
    with gpuprof.open(base) as a, gpuprof.open(cand) as b:
        res = gpuprof.diff(a, b)
    assert res.json == out.read_text()
    frames_equal(json.loads(res.json), res)
    assert (res.doc["regressed_gated"] > 0) == (status == 3)


def test_diff_of_one_trace_with_itself(small_trace):
    with gpuprof.open(small_trace) as t:
        with pytest.raises(gpuprof.Error, match="one trace"):
            gpuprof.diff(t, t)


def test_kernels_table(small_trace):
    with gpuprof.open(small_trace, threads=1) as t:
        k = t.kernels
        assert k.rows == 4 * 20
        assert (k["end"] - k["start"] == k["dur"]).all()
        df = k.to_pandas()
        assert len(df) == k.rows and df["name"].dtype == "category"
        names = t.strings()
        assert list(df["name"].astype(str)) == [names[i] for i in k.codes("name")]
        assert list(df["name"].astype(str)) == k["name"]
        # the same memory each time: no copy
        assert k["api"].ctypes.data == t.kernels["api"].ctypes.data
        assert not k["api"].flags.writeable
        steps = t.steps.to_pandas()
        assert len(steps) == 4 and (steps["end"] > steps["start"]).all()
        for name in gpuprof.Trace.tables:
            tab = t.table(name)
            for col in tab:
                assert len(tab[col]) == tab.rows


def test_close_with_arrays_alive(small_trace):
    t = gpuprof.open(small_trace)
    dur = t.kernels["dur"]
    total = int(dur.sum())
    t.close()
    assert t.closed
    assert int(dur.sum()) == total  # still readable: the handle waits for the array
    with pytest.raises(gpuprof.Error, match="the trace is closed"):
        t.report()
    del dur
    gc.collect()


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_open_close_1000_flat_rss(small_trace):
    def cycle():
        with gpuprof.open(small_trace, threads=1) as t:
            t.kernels.to_pandas()
            t.gaps()

    for _ in range(50):
        cycle()
    gc.collect()
    before = rss_kib()
    for _ in range(1000):
        cycle()
    gc.collect()
    grown = rss_kib() - before
    # a leak of the trace, its tables or a result would be ~100 KiB a cycle: 100 MiB
    assert grown < 4096, f"resident set grew {grown} KiB over 1,000 opens"


def test_the_library_prints_nothing(small_trace, tmp_path, capfd):
    bad = tmp_path / "bad.gpz"
    bad.write_bytes(b"GPZ but not really")
    with gpuprof.open(small_trace) as t:
        t.report(), t.gaps(), t.kernels.to_pandas()
    with pytest.raises(gpuprof.Error):
        gpuprof.open(str(bad))
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_bad_file_says_what_the_command_says(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    for path in (str(bad), str(tmp_path / "missing.gpz"), str(tmp_path)):
        _, err, status = cli("report", path)
        assert status == 1
        with pytest.raises(gpuprof.Error) as e:
            gpuprof.open(path)
        assert err == f"gpuprof: error: {e.value}\n"
        assert isinstance(e.value, OSError) and isinstance(e.value, ValueError)
        assert e.value.status > 0


def test_bad_options_say_what_the_command_says(small_trace):
    for opt, kw in (("--step", "step"), ("--data-loader", "data_loader"),
                    ("--comm-kernel", "comm_kernel")):
        _, err, status = cli("report", opt, "(", small_trace)
        assert status == 2
        with pytest.raises(gpuprof.Error) as e:
            gpuprof.open(small_trace, **{kw: "("})
        assert err.splitlines()[0] == f"gpuprof: error: {e.value}"
    with pytest.raises(gpuprof.Error, match="threads"):
        gpuprof.open(small_trace, threads=100000)


def test_options_reach_the_analyses(small_trace):
    with gpuprof.open(small_trace, step="no such range") as t:
        assert t.steps.rows == 1  # no range matched: the whole trace, as the command says
        out, _, _ = cli("report", "--format", "json", "--step", "no such range", small_trace)
        assert t.report().json == out


def test_without_pandas(small_trace, monkeypatch):
    monkeypatch.setattr(gpuprof, "_pandas", lambda: None)
    with gpuprof.open(small_trace) as t:
        r = t.gaps()
        devices = r["devices"]
        assert isinstance(devices, dict) and devices
        assert all(isinstance(v, list) and len(v) == len(r.doc["devices"]) for v in devices.values())
        with pytest.raises(ImportError):
            t.kernels.to_pandas()


def test_without_numpy(small_trace, monkeypatch):
    monkeypatch.setattr(gpuprof, "_numpy", lambda: None)
    with gpuprof.open(small_trace) as t:
        dur = t.kernels["dur"]
        assert isinstance(dur, memoryview) and dur.format == "Q" and len(dur) == 80
        assert sum(dur) == int(np.frombuffer(dur, dtype=np.uint64).sum())
        dur.release()


# (method, its keyword arguments, the command and its flags that say the same)
LISTING_OPTIONS = [
    ("report", {"top": 3, "min_gap": "5us"}, ["report", "--top", "3", "--min-gap", "5us"]),
    ("report", {"top": "all", "min_gap": 1000}, ["report", "--top", "all", "--min-gap", "1000ns"]),
    ("gaps", {"top": "all"}, ["gaps", "--top", "all"]),
    ("gaps", {"top": 2, "min_gap": "0.5 ms"}, ["gaps", "--top", "2", "--min-gap", "500us"]),
    ("critical_path", {"top": "all"}, ["critical-path", "--top", "all"]),
    ("critical_path", {"top": 1}, ["critical-path", "--top", "1"]),
    ("ops", {"top": "all"}, ["ops", "--top", "all"]),
    ("ops", {"top": 2}, ["ops", "--top", "2"]),
]


def test_listing_options_equal_the_flags(small_trace):
    paths = [small_trace]
    if os.path.isdir(ANCHORS_DIR):
        paths += [os.path.join(ANCHORS_DIR, p) for p in
                  ("kineto/hta/trace_diff/control/control.json.gz", "nsys/mfu_2gpu_before.sqlite")
                  if os.path.exists(os.path.join(ANCHORS_DIR, p))]
    for path in paths:
        with gpuprof.open(path) as t:
            for method, kw, argv in LISTING_OPTIONS:
                out, err, status = cli(*argv, "--format", "json", path)
                assert status == 0, err
                assert getattr(t, method)(**kw).json == out, f"{method}({kw}) of {path}"
            # the options hold for one call: the next without them is the default again
            out, _, _ = cli("gaps", "--format", "json", path)
            assert t.gaps().json == out


def test_listing_options_refused(small_trace):
    with gpuprof.open(small_trace) as t:
        for kw in ({"top": 0}, {"top": -1}, {"top": "some"}, {"top": True},
                   {"min_gap": -5}, {"min_gap": "5 parsecs"}, {"min_gap": "us"}):
            with pytest.raises(ValueError):
                t.gaps(**kw)
