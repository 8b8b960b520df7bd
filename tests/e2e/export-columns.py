#!/usr/bin/env python3
# Compares an nsys SQLite export (SRC) with gpuprof's export of it (OUT) column
# by column, for the tables gpuprof writes. Rows are paired in time order
# (per table: start, then the columns that break ties); times are compared
# relative to the table's first row, string ids through each file's
# StringIds. Prints one line per column that differs or that OUT lacks:
#   TABLE COLUMN differs N/ROWS (first: SRC_VALUE != OUT_VALUE)
#   TABLE COLUMN absent
#   TABLE rows SRC_ROWS != OUT_ROWS
# and nothing else; the caller checks each line against docs/export.md.
import sqlite3
import sys

TABLES = {
    # table: the columns that order its rows (after start)
    "CUPTI_ACTIVITY_KIND_KERNEL": ["globalPid", "deviceId", "streamId", "correlationId"],
    "CUPTI_ACTIVITY_KIND_MEMCPY": ["globalPid", "deviceId", "streamId", "correlationId"],
    "CUPTI_ACTIVITY_KIND_MEMSET": ["globalPid", "deviceId", "streamId", "correlationId"],
    "CUPTI_ACTIVITY_KIND_RUNTIME": ["globalTid", "correlationId"],
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": ["globalPid", "streamId", "correlationId"],
    "NVTX_EVENTS": ["globalTid", "eventType", "end"],
    "TARGET_INFO_GPU": None,
    "PROCESSES": None,
    "ThreadNames": None,
}
TIME_COLS = {"start", "end"}
STRING_COLS = {"demangledName", "shortName", "mangledName", "nameId", "textId"}
# Columns that are an order of rows or a file-local id in both files.
IGNORED = {("NVTX_EVENTS", "rangeId")}


def columns(db, table):
    return [r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (table,))]


def has_table(db, table):
    return db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                      (table,)).fetchone()[0] > 0


def strings(db):
    if not has_table(db, "StringIds"):
        return {}
    return dict(db.execute("SELECT id, value FROM StringIds"))


def rows(db, table, cols, order):
    keys = ", ".join('"%s"' % c for c in order)
    sel = ", ".join('"%s"' % c for c in cols)
    return db.execute('SELECT %s FROM "%s" ORDER BY %s' % (sel, table, keys)).fetchall()


def main():
    src = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    out = sqlite3.connect(sys.argv[2])
    s_str, o_str = strings(src), strings(out)
    for table, order in TABLES.items():
        if not has_table(src, table):
            continue
        s_cols = columns(src, table)
        o_cols = set(columns(out, table)) if has_table(out, table) else set()
        common = [c for c in s_cols if c in o_cols]
        for c in s_cols:
            if c not in o_cols:
                print("%s %s absent" % (table, c))
        if not common:
            continue
        if order is None:
            order = [c for c in ("vmId", "id", "pid", "globalTid") if c in common][:1] or common
        else:
            order = (["start"] if "start" in common else []) + [c for c in order if c in common]
        sr, orows = rows(src, table, common, order), rows(out, table, common, order)
        if len(sr) != len(orows):
            print("%s rows %d != %d" % (table, len(sr), len(orows)))
            continue
        base = {}
        for c in TIME_COLS & set(common):
            i = common.index(c)
            base[c] = (min((r[i] for r in sr if r[i] is not None), default=0),
                       min((r[i] for r in orows if r[i] is not None), default=0))
        base_s = min((v[0] for v in base.values()), default=0)
        base_o = min((v[1] for v in base.values()), default=0)
        for i, c in enumerate(common):
            if (table, c) in IGNORED:
                continue
            bad, first = 0, None
            for a, b in zip(sr, orows):
                x, y = a[i], b[i]
                if c in TIME_COLS and x is not None and y is not None:
                    x, y = x - base_s, y - base_o
                elif c in STRING_COLS:
                    x = s_str.get(x) if x is not None else None
                    y = o_str.get(y) if y is not None else None
                if x != y:
                    bad += 1
                    if first is None:
                        first = (x, y)
            if bad:
                print("%s %s differs %d/%d (first: %r != %r)" %
                      (table, c, bad, len(sr), first[0], first[1]))


main()
