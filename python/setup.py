"""Builds the gpuprof Python module from the source tree: `pip install ./python`.

The C half links the library's objects, which the tree's Makefile builds
(make python); this runs it, then packages build/python/gpuprof.
"""
import os
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


class MakeExt(build_ext):
    """The extension is built by `make python` at the top of the tree."""

    def build_extension(self, ext):
        jobs = os.environ.get("MAKEFLAGS_JOBS", "2")
        subprocess.check_call(["make", "-C", TOP, "-j" + jobs, "python",
                               "PYTHON=" + os.environ.get("GPUPROF_PYTHON", "/usr/bin/python3")])
        out = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.join(TOP, "build", "python", "gpuprof", "_core.abi3.so"), out)


version = open(os.path.join(TOP, "VERSION")).read().strip().replace("-dev", ".dev0")
setup(
    name="gpuprof",
    version=version,
    description="GPU traces and their analyses as NumPy arrays and pandas DataFrames",
    packages=["gpuprof"],
    package_data={"gpuprof": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("gpuprof._core", sources=["gpuprof/_core.c"], py_limited_api=True)],
    cmdclass={"build_ext": MakeExt},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
    python_requires=">=3.11",
)
