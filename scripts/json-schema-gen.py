#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drafts JSON Schemas (2020-12) from documents the commands wrote.

  json-schema-gen.py OUTDIR FILE...

Each FILE is one JSON document (or JSON Lines: `dump`); documents are grouped by their
`schema` key ("gpuprof-report/2" -> OUTDIR/gpuprof-report.schema.json; JSON Lines records
-> gpuprof-dump.schema.json). The draft names every key seen, with the types seen
(integer, number, string, boolean, null, object, array), marks as required the keys every
object at that place had, and refuses others (additionalProperties false). Review the
draft before publishing it (docs/schema/, docs/json.md): a key seen on no input is missing
from it, and t0060 then fails on it, which is the point.
"""
import json
import os
import sys

def WHOLE(key):
    return key.endswith(("_ns", "_bytes", "_count")) or key in (
        "count", "calls", "launches", "gaps", "events", "instances", "allocations", "steps",
        "ranks", "rank", "pid", "device", "stream", "id", "ts")


TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null",
         dict: "object", list: "array"}


class Node:
    def __init__(self):
        self.types = set()
        self.props = {}      # key -> Node
        self.seen = 0        # objects merged here
        self.count = {}      # key -> objects that had it
        self.items = None    # Node of array items
        self.in_array = False  # an array's items: table rows

    def add(self, v):
        t = TYPES[type(v)]
        self.types.add(t)
        if t == "object":
            self.seen += 1
            for k, w in v.items():
                self.props.setdefault(k, Node()).add(w)
                self.count[k] = self.count.get(k, 0) + 1
        elif t == "array":
            if self.items is None:
                self.items = Node()
            for w in v:
                self.items.add(w)

    def schema(self, key="", row=False):
        types = set(self.types)
        # a measure seen whole on these inputs may have decimals on others; nanoseconds,
        # bytes and counts are always whole
        if "integer" in types and ("number" in types or not WHOLE(key)):
            types.discard("integer")
            types.add("number")
        # a table row's number may be empty (null) on other inputs (report/table.c)
        if row and "number" in types or row and "integer" in types:
            types.add("null")
        s = {"type": sorted(types)[0] if len(types) == 1 else sorted(types)}
        if "object" in types:
            rows = self.in_array
            s["properties"] = {k: self.props[k].schema(k, rows) for k in self.props}
            req = [k for k in self.props if self.count[k] == self.seen]
            if req:
                s["required"] = req
            s["additionalProperties"] = False
        if "array" in types and self.items is not None and self.items.types:
            self.items.in_array = True
            s["items"] = self.items.schema(key)
        return s


def docs(path):
    text = open(path).read()
    if not text.strip():
        return []
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    roots = {}
    for f in argv[2:]:
        for d in docs(f):
            name = d.get("schema", "gpuprof-dump/1").split("/")[0] if isinstance(d, dict) else None
            if name:
                roots.setdefault(name, [Node(), set()])[0].add(d)
                if "schema" in d:
                    roots[name][1].add(d["schema"])
    made = {}
    for name, (node, versions) in sorted(roots.items()):
        s = {"$schema": "https://json-schema.org/draft/2020-12/schema",
             "title": max(versions) if versions else name}
        s.update(node.schema())
        if versions:
            s["properties"]["schema"] = {"const": sorted(versions)[-1]}
        made[name] = s
    # what the inputs cannot show: a flight recording's object (docs/flight-recorder.md)
    if "gpuprof-report" in made:
        made["gpuprof-report"]["properties"]["flight"] = {"type": ["object", "null"]}
    # the HTML page's data holds a whole report document: its schema, not a second draft
    if "gpuprof-html" in made and "gpuprof-report" in made:
        rep = {k: v for k, v in made["gpuprof-report"].items() if not k.startswith("$")}
        made["gpuprof-html"]["properties"]["report"] = rep
    for name, s in made.items():
        with open(os.path.join(argv[1], name + ".schema.json"), "w") as o:
            json.dump(s, o, indent=1)
            o.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
