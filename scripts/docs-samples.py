#!/usr/bin/env python3
# docs-samples.py - the sample outputs of README.md and docs/*.md, produced by
# running the commands they show.
#
# A sample is a marker comment naming the commands, then the block they print,
# then an end marker:
#
#   <!-- sample: gpuprof info ../shared/anchors/nsys/mock.sqlite -->
#   ```
#   $ gpuprof info ../shared/anchors/nsys/mock.sqlite
#   ...what it printed...
#   ```
#   <!-- end sample -->
#
# A marker indented by spaces (a sample inside a list item) indents the block as
# much. Or, for several commands, one a line:
#
#   <!-- sample
#   build/tracegen --steps 8 -o demo.gpz
#   gpuprof report demo.gpz | head -n 12
#   -->
#
# Each command is shown after "$ " and followed by what it wrote on standard
# output and standard error. The commands of one sample run one after another
# with sh in an empty folder of their own, where `gpuprof` is the build's,
# `build/` is the build folder and `../shared` is the shared folder beside the
# checkout (the anchors), at COLUMNS=100, so the output is that of a user's
# terminal of 100 columns. A command that exits non-zero fails the refresh.
#
# Usage: docs-samples.py [--check] --build DIR [--shared DIR] FILE...
#   without --check: rewrites each sample in place (make docs-samples);
#   --check: changes nothing, prints the differences and exits 1 when a sample
#   is not what its commands print today; samples that read ../shared are
#   skipped (and counted) when that folder is missing. Exit 2: bad usage or a
#   command failed.
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = re.compile(r"^(?P<indent> *)<!-- sample(?::(?P<one>.*?))?\s*(?P<close>-->)?\s*$")
END = "<!-- end sample -->"


def parse(path, lines):
    """Yield (start, cmds, body_from, body_to): indexes into lines."""
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        if m.group("one") is not None and m.group("close"):
            cmds = [m.group("one").strip()]
            i += 1
        else:
            if m.group("close") or m.group("one"):
                raise SystemExit(f"{path}:{i + 1}: a sample marker is either "
                                 "'<!-- sample: CMD -->' or '<!-- sample' alone")
            cmds = []
            i += 1
            while i < len(lines) and lines[i].strip() != "-->":
                if lines[i].strip():
                    cmds.append(lines[i].strip())
                i += 1
            if i == len(lines):
                raise SystemExit(f"{path}:{start + 1}: sample marker never closed by '-->'")
            i += 1
        if not cmds or not all(cmds):
            raise SystemExit(f"{path}:{start + 1}: a sample without a command")
        body = i
        while i < len(lines) and lines[i].strip() != END:
            if MARK.match(lines[i]):
                raise SystemExit(f"{path}:{start + 1}: sample without '{END}'")
            i += 1
        if i == len(lines):
            raise SystemExit(f"{path}:{start + 1}: sample without '{END}'")
        yield start, cmds, body, i, m.group("indent")
        i += 1


def run(cmds, build, shared, where):
    """The block the commands print, as lines."""
    top = tempfile.mkdtemp(prefix="gp-docs-")
    try:
        if shared:
            os.symlink(os.path.abspath(shared), os.path.join(top, "shared"))
        cwd = os.path.join(top, "sample")
        os.mkdir(cwd)
        os.symlink(os.path.abspath(build), os.path.join(cwd, "build"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPROF_")}
        env.update(PATH=os.path.abspath(build) + os.pathsep + env.get("PATH", ""),
                   COLUMNS="100", LC_ALL="C.UTF-8", TZ="UTC", TMPDIR=top)
        out = ["```"]
        for c in cmds:
            out.append("$ " + c)
            p = subprocess.run(["sh", "-c", c], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            text = p.stdout.decode("utf-8", "replace")
            if p.returncode:
                sys.stderr.write(text[-2000:])
                raise SystemExit(f"{where}: '{c}' exited {p.returncode}")
            out.extend(line.rstrip() for line in text.rstrip("\n").split("\n") if text)
        out.append("```")
        return out
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--build", required=True)
    ap.add_argument("--shared")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.build, "gpuprof")):
        raise SystemExit(f"docs-samples: no gpuprof in '{a.build}': build first")
    shared = a.shared if a.shared and os.path.isdir(a.shared) else None
    stale = done = skipped = 0
    for path in a.files:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        new = []
        last = 0
        for start, cmds, body, end, indent in parse(path, lines):
            where = f"{path}:{start + 1}"
            new.extend(lines[last:body])
            last = end
            if not shared and any("../shared" in c for c in cmds):
                if not a.check:
                    raise SystemExit(f"{where}: needs ../shared (--shared DIR)")
                skipped += 1
                new.extend(lines[body:end])
                continue
            got = [(indent + x).rstrip() for x in run(cmds, a.build, shared, where)]
            done += 1
            if got != lines[body:end]:
                stale += 1
                if a.check:
                    sys.stdout.writelines(difflib.unified_diff(
                        [x + "\n" for x in lines[body:end]], [x + "\n" for x in got],
                        f"{where} (in the file)", f"{where} (printed today)"))
            new.extend(got)
        new.extend(lines[last:])
        if not a.check and new != lines:
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write("\n".join(new))
            os.replace(tmp, path)
    print(f"docs-samples: {done} samples run, {stale} "
          f"{'differ' if a.check else 'refreshed'}, {skipped} skipped (no ../shared)")
    if a.check and stale:
        print("docs-samples: the samples above are not today's output: "
              "run 'make docs-samples' and review the diff")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
