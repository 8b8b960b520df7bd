"""docs/python.md's notebook example prints what the page shows.

The example is run as written (from the checkout, where ../shared holds the anchors)
and its output compared line by line with the block after it; the page names the
pandas version it was printed with, and another version's formatting is not compared.
"""
import os
import re
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ANCHORS, TOP, need_anchors


def example():
    text = open(os.path.join(TOP, "docs", "python.md"), encoding="utf-8").read()
    m = re.search(r"### A notebook-sized example\n.*?```python\n(?P<code>.*?)```\n\n"
                  r"prints \(`[^`]*`, pandas (?P<ver>[0-9.]+)\):\n\n```\n(?P<out>.*?)```\n",
                  text, re.S)
    assert m, "docs/python.md: the notebook example, or its printed block, was not found"
    return m.group("code"), m.group("ver"), m.group("out")


def test_python_md_example_prints_what_the_page_shows():
    code, ver, out = example()
    need_anchors()
    if os.path.realpath(ANCHORS) != os.path.realpath(os.path.join(TOP, "..", "shared", "anchors")):
        pytest.skip("the example reads ../shared beside the checkout")
    if pd.__version__ != ver:
        pytest.skip(f"the page was printed with pandas {ver}, this is {pd.__version__}")
    p = subprocess.run([sys.executable, "-c", code], cwd=TOP, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    got = [line.rstrip() for line in p.stdout.splitlines()]
    want = [line.rstrip() for line in out.splitlines()]
    assert got == want
