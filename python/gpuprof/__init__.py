"""gpuprof: GPU traces and their analyses in Python, at C speed.

Open a trace (a .gpz recorded by gpuprof, a PyTorch profiler / Kineto JSON
trace, an Nsight Systems SQLite export, or a directory of them)::

    import gpuprof
    with gpuprof.open("rank0.pt.trace.json.gz") as t:
        k = t.kernels.to_pandas()           # one row per kernel launch
        r = t.report()                      # the report's tables
        r["kernels"]                        # top kernels, as `gpuprof report` lists them

Tables of the trace (Trace.kernels, .api, .copies, .memsets, .nvtx, .sync,
.overheads, .memory_events, .steps, .devices, .processes, .threads) are
columns by name: NumPy arrays when NumPy is installed (memoryviews
otherwise) over the library's memory, without a copy; .to_pandas() makes a
DataFrame. Times are integer nanoseconds.

The analyses (Trace.report(), .gaps(), .critical_path(), .ops(),
.memory(), .breakdown()) return the tables of the JSON the matching command writes
(`gpuprof report --format json`...), as pandas DataFrames when pandas is
installed, else as dicts of lists; the document's other values are in
Result.doc.

gpuprof.diff(a, b) compares two traces as `gpuprof diff --json` does (a the
baseline, b the candidate, each one run): its metrics and verdicts.

Errors raise gpuprof.Error (an OSError and a ValueError) with the message
the gpuprof command prints. Nothing outside the standard library is needed
to import the module.
"""

import json as _json
import os as _os
from collections.abc import Mapping as _Mapping

from . import _core
from ._core import Error

__all__ = ["open", "diff", "Trace", "Table", "Result", "Error", "version", "api_version"]

version = _core.version
api_version = _core.api_version


def _numpy():
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _pandas():
    try:
        import pandas
    except ImportError:
        return None
    return pandas


_DTYPES = {"B": "uint8", "H": "uint16", "I": "uint32", "Q": "uint64", "i": "int32", "q": "int64"}


class Table(_Mapping):
    """One table of a trace: its columns by name, each with `rows` values.

    t["dur"] is a NumPy array (a memoryview without NumPy) sharing the
    library's memory; string columns ("name"...) are lists of str, their
    integer ids in t.codes("name") (an index into Trace.strings()).
    to_pandas() makes a DataFrame, string columns as categoricals.
    """

    def __init__(self, trace, name):
        rows, cols = trace._core.table(name)
        self.name = name
        self.rows = rows
        self._trace = trace
        self._cols = {c: (v, is_str) for c, v, is_str in cols}

    def __getitem__(self, key):
        v, is_str = self._cols[key]
        if isinstance(v, list):
            return v
        if is_str:
            strings = self._trace.strings()
            return [strings[i] for i in memoryview(v)]
        np = _numpy()
        if np is not None:
            return np.frombuffer(v, dtype=_DTYPES[v.typecode])
        return memoryview(v)

    def codes(self, key):
        """The string ids of string column `key` (indexes into Trace.strings())."""
        v, is_str = self._cols[key]
        if not is_str:
            raise KeyError(f"{key} is not a string column")
        np = _numpy()
        return np.frombuffer(v, dtype="uint32") if np is not None else memoryview(v)

    def __iter__(self):
        return iter(self._cols)

    def __len__(self):
        return len(self._cols)

    def __repr__(self):
        return f"<gpuprof.Table {self.name}: {self.rows} rows, columns {list(self._cols)}>"

    def to_pandas(self):
        """The table as a pandas DataFrame (strings as categoricals)."""
        pd = _pandas()
        if pd is None:
            raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)")
        np = _numpy()
        data = {}
        cats = None
        for key, (v, is_str) in self._cols.items():
            if isinstance(v, list):
                data[key] = v
            elif is_str:
                if cats is None:
                    cats = pd.Index(self._trace.strings())
                codes = np.frombuffer(v, dtype="uint32").astype("int32")
                data[key] = pd.Categorical.from_codes(codes, categories=cats)
            else:
                data[key] = np.frombuffer(v, dtype=_DTYPES[v.typecode])
        return pd.DataFrame(data, copy=False)


class Result(dict):
    """An analysis's result: its tables by their JSON key.

    Each top-level array of objects of the JSON document is one table: a
    pandas DataFrame, or a dict of lists without pandas. The whole document
    is in .doc (parsed), its text in .json.
    """

    def __init__(self, text):
        super().__init__()
        self.json = text
        self.doc = _json.loads(text)
        pd = _pandas()
        for key, value in self.doc.items():
            if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
                self[key] = pd.DataFrame(value) if pd is not None else _columns(value)

    def __repr__(self):
        return f"<gpuprof.Result tables {list(self)}>"


_UNITS = {"ns": 1, "us": 1000, "\u00b5s": 1000, "ms": 1000000, "s": 1000000000}


def _top(top):
    """top= of an analysis: None the command's default, "all", or a count of 1 or more."""
    if top is None:
        return 0
    if top == "all":
        return -1
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError(f"top={top!r}: give a count of 1 or more, 'all' or None")
    return top


def _duration_ns(value):
    """min_gap=: None the default, nanoseconds as an int, or a string such as "5us", "1.5 ms"."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        text = value.strip()
        for unit in sorted(_UNITS, key=len, reverse=True):
            if text.endswith(unit):
                try:
                    number = float(text[: -len(unit)].strip())
                except ValueError:
                    break
                if number >= 0:
                    return round(number * _UNITS[unit])
                break
    raise ValueError(f"min_gap={value!r}: give nanoseconds or a duration such as '5us' "
                     "(units ns, us, ms, s)")


def _columns(rows):
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    return {k: [r.get(k) for r in rows] for k in keys}


class Trace:
    """An open trace: its tables and its analyses. Close it (or use `with`)."""

    def __init__(self, core):
        self._core = core
        self._strings = None
        self._tables = {}

    def close(self):
        """Frees the trace (once NumPy arrays over its columns are gone)."""
        self._tables.clear()
        self._strings = None
        self._core.close()

    @property
    def closed(self):
        return self._core.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def strings(self):
        """Every string of the trace by id (string columns hold these ids)."""
        if self._strings is None:
            self._strings = self._core.strings()
        return self._strings

    def table(self, name):
        """Table `name` (one of gpuprof.Trace.tables)."""
        if name not in self._tables:
            self._tables[name] = Table(self, name)
        return self._tables[name]

    tables = tuple(_core.table_names())

    kernels = property(lambda self: self.table("kernels"),
                       doc="Kernel launches: start, end, dur (ns), name, device, stream, launch configuration")
    api = property(lambda self: self.table("api"),
                   doc="CUDA runtime and driver calls: start, end, dur, name, pid, tid, corr")
    copies = property(lambda self: self.table("copies"),
                      doc="Memory copies: start, end, bytes, copy_kind, stream, dev")
    memsets = property(lambda self: self.table("memsets"), doc="Memory sets")
    nvtx = property(lambda self: self.table("nvtx"),
                    doc="NVTX ranges, PyTorch operators and annotations: start, end, name, domain, depth")
    sync = property(lambda self: self.table("sync"), doc="Synchronization calls")
    overheads = property(lambda self: self.table("overheads"), doc="Profiler overhead intervals")
    memory_events = property(lambda self: self.table("memory_events"),
                             doc="Allocations and frees: ts, addr, bytes, op")
    steps = property(lambda self: self.table("steps"),
                     doc="Training steps as the analyses find them: number, name, start, end, GPU busy")
    devices = property(lambda self: self.table("devices"), doc="GPUs")
    processes = property(lambda self: self.table("processes"), doc="Traced processes (one per file)")
    threads = property(lambda self: self.table("threads"), doc="Threads")

    def _analyze(self, kind, top=None, min_gap=None):
        return Result(self._core.analyze(kind, _top(top), _duration_ns(min_gap)))

    def report(self, top=None, min_gap=None):
        """`gpuprof report`'s tables: steps, kernels, idle_by_cause, longest_gaps, findings...

        top: kernels and gaps listed (default 10; "all" for every one), as --top.
        min_gap: gaps listed from this length (ns or "5us"; default 10 us), as --min-gap.
        """
        return self._analyze(_core.REPORT, top, min_gap)

    def gaps(self, top=None, min_gap=None):
        """`gpuprof gaps`'s tables: devices, causes, histogram, gaps.

        top: the longest gaps listed (default 10; "all" for every one), as --top.
        min_gap: gaps listed from this length (ns or "5us"; default 10 us), as --min-gap.
        """
        return self._analyze(_core.GAPS, top, min_gap)

    def critical_path(self, top=None):
        """`gpuprof critical-path`'s tables: steps, composition, segments.

        top: longest path segments listed per step (default 5; "all"), as --top.
        """
        return self._analyze(_core.CRITICAL_PATH, top)

    def ops(self, top=None):
        """`gpuprof ops`'s tables: by_name, by_inputs.

        top: rows per table, most GPU time first (default 20; "all"), as --top.
        """
        return self._analyze(_core.OPS, top)

    def memory(self):
        """`gpuprof memory`'s tables (allocator pools, peaks, leaks)."""
        return self._analyze(_core.MEMORY)

    def breakdown(self, compat="none"):
        """`gpuprof breakdown`'s tables: HTA's temporal, idle, kernel-type and overlap breakdowns.

        compat: "none" (exact nanoseconds), "hta" (HTA's numbers, its rounding and other
        quirks: docs/hta-parity.md) or "hta-noround" (HTA with HTA_DISABLE_NS_ROUNDING=1),
        as `gpuprof breakdown --compat`.
        """
        kinds = {"none": _core.BREAKDOWN, "hta": _core.BREAKDOWN_HTA,
                 "hta-noround": _core.BREAKDOWN_HTA_NOROUND}
        if compat not in kinds:
            raise ValueError(f"unknown compat mode '{compat}': none, hta or hta-noround")
        return self._analyze(kinds[compat])

    def __repr__(self):
        return "<gpuprof.Trace closed>" if self.closed else "<gpuprof.Trace>"


def open(path, *more, threads=0, step=None, data_loader=None, comm_kernel=(),
         allow_unrelated=False):
    """Opens a trace: one path or several (str or os.PathLike), read as one.

    threads: threads reading and analysing (0: one per core); step,
    data_loader: PCRE2 patterns of the ranges that are steps or data loading;
    comm_kernel: patterns of kernel names that are communication;
    allow_unrelated: analyse traces that are not of one run together.
    These are the options of `gpuprof report` of the same names.
    """
    paths = [path] if isinstance(path, (str, bytes, _os.PathLike)) else list(path)
    paths = [_os.fsdecode(_os.fspath(p)) for p in paths + list(more)]
    if isinstance(comm_kernel, str):
        comm_kernel = [comm_kernel]
    return Trace(_core.open(paths, threads, step, data_loader, list(comm_kernel),
                            bool(allow_unrelated)))


def diff(baseline, candidate):
    """Compares two open traces as `gpuprof diff --json FILE A -- B` does, each one run.

    The result's table is the JSON's "metrics" (per metric: both sides, the
    change, its test and verdict); the explanation, run counts and warnings
    are in .doc.
    """
    return Result(_core.diff(baseline._core, candidate._core))
