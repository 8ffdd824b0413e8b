#!/usr/bin/env python3
"""Check the promise docs/guide.md makes about field legends.

Each lock-protected field names its lock in a comment after its
declaration ("u64 nr_executed; /* L */"), in letters a legend defines: a
comment of the file, or of the header the field's struct shares, that
reads "Field legend: L = pool->lock; A = atomic; ...". The guide lists the
letters used in more than one file, each with its one meaning throughout
the tree; any other letter belongs to the one file whose legend defines it.

This script finds every legend (arch/ kernel/ drivers/ lib/ tests/) and
every field comment that starts with legend letters, and checks:
  - a name defined by the legends of two or more files is in the guide's
    list (else two files could give it two meanings, as Q once had);
  - every name a field comment uses is defined by the file's own legend,
    by the legend of a header it includes, or by the guide's list;
  - every name in the guide's list is used by some field.

Prints one "ok"/"not ok" line per check (KTAP-like) and exits 1 on failure.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DIRS = ["arch", "kernel", "drivers", "lib", "tests"]
GUIDE = "docs/guide.md"

NAME = r"[A-Z]{1,3}"
LEGEND = re.compile(r"Field legend[^:]*:(.*?)\*/", re.S)
LEGEND_DEF = re.compile(r"(?:^|[\s;(,*])(%s) = " % NAME)
# A declaration's trailing comment that starts with legend names: "/* L */",
# "/* PM+H; read with READ_ONCE */", "/* I, then A: ... */", "/* X of ... */".
FIELD = re.compile(r";\s*/\*\s*((?:%s)(?:\s*[+,/]\s*%s)*)(?=\s*(?:\*/|[:;,(]|\sof\s|\s\())"
                   % (NAME, NAME))
INCLUDE = re.compile(r'^#include\s+"([^"]+)"', re.M)
# In the guide: "... each letter means one thing throughout the tree: I set
# before others see it, A atomic, ..., H cpu_hotplug_lock; ..." The list
# runs from the colon to the semicolon; each entry starts with its name.
GUIDE_LIST = re.compile(r"means one thing throughout\s+the tree:(.*?);", re.S)


def sources():
    out = subprocess.run(["git", "ls-files"] + ["%s/*.%s" % (d, e) for d in DIRS
                                                for e in ("c", "h")],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return sorted(set(out.split()))


def guide_names():
    text = open(os.path.join(ROOT, GUIDE)).read()
    m = GUIDE_LIST.search(text)
    if not m:
        return None
    entries = re.split(r",\s*", " ".join(m.group(1).split()))
    return {e.split()[0] for e in entries if e.strip()}


def main():
    files = sources()
    src = {f: open(os.path.join(ROOT, f)).read() for f in files}
    defs = {f: {d.group(1) for m in LEGEND.finditer(s) for d in LEGEND_DEF.finditer(m.group(1))}
            for f, s in src.items()}
    guide = guide_names()
    n, failed = 0, False

    def result(ok, what, details):
        nonlocal n, failed
        n += 1
        print("%s %d %s" % ("ok" if ok else "not ok", n, what))
        for d in details:
            print("    # " + d)
        failed |= not ok

    result(guide is not None, "the guide lists the tree-wide legend letters",
           [] if guide is not None else ["%s: no 'means one thing throughout the tree: "
                                         "...;' list" % GUIDE])
    guide = guide or set()

    by_name = {}
    for f, names in defs.items():
        for name in names:
            by_name.setdefault(name, []).append(f)
    shared = ["%s is defined by %s and is not in %s's list" % (name, ", ".join(fs), GUIDE)
              for name, fs in sorted(by_name.items()) if len(fs) > 1 and name not in guide]
    result(not shared, "a legend name defined in several files is one of the guide's", shared)

    undefined, used = [], set()
    for f, s in src.items():
        known = set(defs[f]) | guide
        for inc in INCLUDE.findall(s):
            known |= defs.get(inc, set())
        for lineno, line in enumerate(s.splitlines(), 1):
            for m in FIELD.finditer(line):
                for name in re.split(r"\s*[+,/]\s*", m.group(1)):
                    used.add(name)
                    if name not in known:
                        undefined.append("%s:%d: '%s' is in no legend the file sees "
                                         "(its own, its headers', the guide's)"
                                         % (f, lineno, name))
    result(not undefined, "every legend name a field uses is defined", undefined)

    stale = ["%s lists %s, which no field uses" % (GUIDE, name)
             for name in sorted(guide - used)]
    result(not stale, "every letter the guide lists is used", stale)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
