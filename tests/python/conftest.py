"""What the Python module's tests share: the command, the anchors, a generated trace.

Run by tests/e2e/t0030-python.sh (make test T=python), which sets GPUPROF,
TRACEGEN, TOP and PYTHONPATH; the anchors are ../shared/anchors beside the
checkout (or GPUPROF_ANCHORS): missing, the tests that read them skip, except
under CI=true, where they fail.
"""
import os
import subprocess

import pytest

GPUPROF = os.environ.get("GPUPROF", "gpuprof")
TOP = os.environ.get("TOP", os.path.join(os.path.dirname(__file__), "..", ".."))
ANCHORS = os.environ.get("GPUPROF_ANCHORS") or os.path.join(TOP, "..", "shared", "anchors")


def anchor_files():
    """Every Kineto and nsys anchor; under GPUPROF_ANCHOR_SWEEP=small those under 1 MB."""
    found = []
    for root, _, files in os.walk(ANCHORS):
        for f in files:
            if f.endswith((".json", ".json.gz", ".sqlite")):
                found.append(os.path.join(root, f))
    if os.environ.get("GPUPROF_ANCHOR_SWEEP") == "small":
        found = [f for f in found if os.path.getsize(f) < 1 << 20]
    return sorted(found)


def need_anchors():
    if not os.path.isdir(ANCHORS):
        if os.environ.get("CI") == "true":
            pytest.fail(f"no {ANCHORS}: in CI (CI=true) ../shared/anchors must be beside the checkout")
        pytest.skip(f"no {ANCHORS}")


def cli(*args):
    """The command's stdout, stderr and exit status."""
    p = subprocess.run([GPUPROF, *args], capture_output=True, text=True)
    return p.stdout, p.stderr, p.returncode


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory):
    """A generated .gpz of 4 steps (tests/tools/tracegen)."""
    path = str(tmp_path_factory.mktemp("gen") / "small.gpz")
    subprocess.run([os.environ.get("TRACEGEN", "tracegen"), "-o", path, "--steps", "4",
                    "--kernels", "20"], check=True, capture_output=True)
    return path
