#!/usr/bin/env python3
# readme-commands.py README: the commands of README.md's code blocks, one per line,
# as "KIND<TAB>LINE<TAB>COMMAND" for t0041:
#   run       an example to run (```sh blocks, and plain lines without placeholders)
#   synopsis  a usage line (brackets, "...", an upper-case placeholder such as TRACE, a|b)
#   sample    a line of a generated sample (<!-- sample ... -->): t0040 runs those
# Output lines of examples (after a command, in a block that shows both) are not listed.
import re
import sys

# a usage line: brackets, "...", an upper-case placeholder, alternatives (a|b), or a
# description after two spaces or more
PLACEHOLDER = re.compile(r"\[|\.\.\.|(^|\s)[A-Z][A-Z_]+[A-Z](\s|,|\.|$)|\w\|\w|\S {2,}\S")
STARTS = ("gpuprof ", "build/", "mkdir ", "mpirun ", "make ", "srun ")


def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    in_sample = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("<!-- sample"):
            in_sample = True
        elif line.startswith("<!-- end sample"):
            in_sample = False
        if not line.startswith("```"):
            i += 1
            continue
        lang = line[3:].strip()
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            no, cmd = i + 1, lines[i]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
            cmd = re.sub(r"\s+#.*$", "", cmd.strip()) if lang == "sh" else cmd.strip()
            i += 1
            if in_sample:
                if cmd.startswith("$ "):
                    print(f"sample\t{no}\t{cmd[2:]}")
                continue
            if not cmd.startswith(STARTS):
                continue
            if lang != "sh" and PLACEHOLDER.search(cmd):
                print(f"synopsis\t{no}\t{cmd}")
            else:
                print(f"run\t{no}\t{cmd}")
        i += 1


if __name__ == "__main__":
    main(sys.argv[1])
