#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The JSON keys of the table columns, and a check that a key change changed no value.

  json-keys.py table            the old key (the column heading) and the new one of
                                every table column, by source file, as Markdown rows
  json-keys.py compare OLD NEW  OLD and NEW are JSON documents (or JSON Lines) written by
                                the same command on the same input before and after the
                                keys changed: renames OLD's keys as docs/json.md says and
                                exits 1, naming the first difference, unless the two are
                                then equal (the schema string and keys NEW adds aside)

Run from the checkout's root. The map is read from the sources themselves (each column's
heading and its JSON key in report/*.c, each nsys-style column's name, unit and key in
report/stats.c), so it is the one the code uses.
"""
import json
import re
import sys

COL = re.compile(r'\{"((?:[^"\\]|\\.)*)",\s*[^{}"]*,\s*"([a-z0-9_]+)"\}')
STATS = re.compile(r'\{"([^"]+)", (U_[A-Z]+), [A-Z_]+, [A-Z]+, "([a-z0-9_]+)"\}')
STATS_UNIT = {"U_PCT": ("%", "_pct"), "U_MB": ("MB", "_mb"), "U_MBPS": ("MB/s", "_mb_per_s")}
TIME_UNITS = ("ns", "us", "ms", "s")
# Keys written by hand that changed with the columns' (docs/json.md)
EXTRA = {
    "gpu_ns_in_ops": "gpu_in_ops_ns",
    "gpu_ns_modelled": "gpu_modelled_ns",
    "mem_gbps": "mem_gb_per_s",
    "pageable": "pageable_ns",
}
# Objects whose every key gained "_ns" ("data-loading" -> "data_loading_ns")
NS_OBJECTS = ("path", "copies_on_path")


def table_columns(path):
    return [(m.group(1), m.group(2)) for m in COL.finditer(open(path).read())]


def key_map():
    import glob

    m = {}
    for f in sorted(glob.glob("report/*.c")):
        if f != "report/stats.c":
            for old, new in table_columns(f):
                m[old] = new
    # the job report's per-cause columns, "launch-overhead (ns)"
    m["Idle %"] = "idle_pct"
    for old, unit, new in STATS.findall(open("report/stats.c").read()):
        if unit == "U_TIME":
            for u in TIME_UNITS:
                m[f"{old} ({u})"] = f"{new}_{u}"
        elif unit in STATS_UNIT:
            m[f"{old} ({STATS_UNIT[unit][0]})"] = new + STATS_UNIT[unit][1]
        else:
            m[old] = new
    return m


def rename(x, m, parent=None):
    if isinstance(x, list):
        return [rename(v, m) for v in x]
    if not isinstance(x, dict):
        return x
    out = {}
    for k, v in x.items():
        if parent in NS_OBJECTS and k != "pageable":
            nk = k.replace("-", "_") + "_ns"
        elif parent == "losses":
            nk = k.replace("-", "_")
        elif k in m:
            nk = m[k]
        elif k.endswith(" (ns)"):
            nk = k[:-5].replace("-", "_") + "_ns"
        else:
            nk = EXTRA.get(k, k)
        out[nk] = rename(v, m, k)
    return out


def first_diff(a, b, path="$"):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                return f"{path}.{k}: not in the new document"
            d = first_diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items, then {len(b)}"
        for i, (u, v) in enumerate(zip(a, b)):
            d = first_diff(u, v, f"{path}[{i}]")
            if d:
                return d
        return None
    if a != b or type(a) is not type(b):
        return f"{path}: {a!r}, then {b!r}"
    return None


def load(path):
    text = open(path).read()
    try:
        return [json.loads(text)] if text.strip() else []
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def compare(old, new):
    m = key_map()
    a, b = load(old), load(new)
    if len(a) != len(b):
        return f"{len(a)} documents, then {len(b)}"
    for u, v in zip(a, b):
        u = rename(u, m)
        if isinstance(u, dict) and isinstance(v, dict):
            u.pop("schema", None)
            v = {k: w for k, w in v.items() if k != "schema"}
        if isinstance(u, dict) and isinstance(u.get("report"), dict):
            u["report"].pop("schema", None)
            v["report"] = {k: w for k, w in v["report"].items() if k != "schema"}
        d = first_diff(u, v)
        if d:
            return d
    return None


def main(argv):
    if len(argv) == 2 and argv[1] == "table":
        import glob

        for f in sorted(glob.glob("report/*.c")):
            cols = table_columns(f) if f != "report/stats.c" else None
            if cols:
                print(f"\n{f}\n")
                seen = set()
                for old, new in cols:
                    if (old, new) not in seen:
                        seen.add((old, new))
                        print(f"| `{old}` | `{new}` |")
        print("\nreport/stats.c\n")
        for old, unit, new in dict.fromkeys(STATS.findall(open("report/stats.c").read())):
            if unit == "U_TIME":
                print(f"| `{old} (ns)` (`us`, `ms`, `s`) | `{new}_ns` (`_us`, `_ms`, `_s`) |")
            elif unit in STATS_UNIT:
                print(f"| `{old} ({STATS_UNIT[unit][0]})` | `{new}{STATS_UNIT[unit][1]}` |")
            else:
                print(f"| `{old}` | `{new}` |")
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        d = compare(argv[2], argv[3])
        if d:
            print(f"{argv[3]}: {d}")
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
