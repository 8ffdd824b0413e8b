#!/usr/bin/env python3
"""Check that baton's C sources keep the house style (.clang-format).

Every .c and .h file under arch/ kernel/ lib/ drivers/ tests/ must be
exactly what clang-format makes of it, and no line of it may be longer
than the ColumnLimit in .clang-format (tabs counted as 8 columns, as in
the style). The tree is formatted with clang-format 14 (Debian 12's; the
deps step installs clang-format-14): other versions format some
constructs differently, so this check uses that version only.

To fix a file:   clang-format-14 -i FILE

Prints one "ok"/"not ok" line per check (KTAP-like), the files that differ
under each "not ok", and exits 1 on failure.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DIRS = ["arch", "kernel", "lib", "drivers", "tests"]
CLANG_FORMAT = "clang-format-14"


def sources():
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def column_limit():
    with open(os.path.join(ROOT, ".clang-format")) as f:
        m = re.search(r"^ColumnLimit:\s*(\d+)", f.read(), re.M)
    return int(m.group(1))


def main():
    files = sorted(sources())
    limit = column_limit()
    failed = False

    exe = shutil.which(CLANG_FORMAT)
    if not exe:
        print("not ok 1 clang-format: %s is not installed (make deps installs it)" % CLANG_FORMAT)
        failed = True
    else:
        differ = []
        for path in files:
            r = subprocess.run([exe, "--style=file", os.path.join(ROOT, path)],
                               capture_output=True, text=True, cwd=ROOT)
            with open(os.path.join(ROOT, path)) as f:
                if r.returncode != 0 or r.stdout != f.read():
                    differ.append(path)
        print("%s 1 clang-format: %d files, %d differ from %s" % (
            "not ok" if differ else "ok", len(files), len(differ), CLANG_FORMAT))
        for path in differ:
            print("    # %s (fix: %s -i %s)" % (path, CLANG_FORMAT, path))
        failed |= bool(differ)

    long_lines = []
    for path in files:
        with open(os.path.join(ROOT, path)) as f:
            for n, line in enumerate(f, 1):
                width = len(line.rstrip("\n").expandtabs(8))
                if width > limit:
                    long_lines.append("%s:%d: %d columns" % (path, n, width))
    print("%s 2 line length: no line over %d columns in %d files" % (
        "not ok" if long_lines else "ok", limit, len(files)))
    for l in long_lines:
        print("    # " + l)
    failed |= bool(long_lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
