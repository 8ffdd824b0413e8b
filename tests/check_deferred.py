#!/usr/bin/env python3
"""Check baton's rule that the workqueue is the only deferred-work mechanism.

docs/workqueue.md has a table of every kernel thread that is not a worker,
every timer callback and every interrupt handler, each with its file and a
reason. This script finds those in the kernel sources (arch/ kernel/
drivers/ lib/; tests are exempt) and compares both ways: an entry in the
code that the table lacks, or a stale row, is an error. It also rejects
tasklets, softirqs and bottom halves anywhere outside comments.

Prints one "ok"/"not ok" line per check (KTAP-like) and exits 1 on failure.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DIRS = ["arch", "kernel", "drivers", "lib"]
# The definitions of the mechanisms themselves are not users of them.
EXEMPT = {"kernel/kthread.c", "kernel/kthread.h", "kernel/timer.c", "kernel/timer.h",
          "arch/x86_64/traps.c", "arch/x86_64/traps.h"}
PATTERNS = {
    "thread": re.compile(r"\bkthread_(?:create(?:_on_cpu|_on_mask)?|run)\s*\(\s*(\w+)"),
    "timer": re.compile(r"\btimer_setup\s*\([^,]+,\s*(\w+)"),
    "irq": re.compile(r"\birq_register_vector\s*\([^,]+,\s*(\w+)"),
}
FORBIDDEN = re.compile(r"\b(tasklet\w*|\w*softirq\w*|local_bh_\w+|\w*bottom_half\w*)\b", re.I)


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def sources():
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h", ".S")):
                    path = os.path.join(dirpath, f)
                    yield os.path.relpath(path, ROOT), path


def table(doc):
    rows = set()
    for line in open(doc, encoding="utf-8"):
        m = re.match(r"\|\s*(thread|timer|irq)\s*\|\s*(\w+)\s*\|\s*([\w./]+)\s*\|\s*(.*?)\s*\|\s*$", line)
        if m:
            if not m.group(4):
                sys.exit("check_deferred: row for %s gives no reason" % m.group(2))
            rows.add((m.group(1), m.group(2), m.group(3)))
    return rows


def main():
    doc = os.path.join(ROOT, "docs", "workqueue.md")
    listed = table(doc)
    found, problems = {}, []
    for rel, path in sources():
        code = strip_comments(open(path, encoding="utf-8", errors="replace").read())
        for n, line in enumerate(code.split("\n"), 1):
            m = FORBIDDEN.search(line)
            if m:
                problems.append("%s:%d: '%s': baton has no deferred-work mechanism but the "
                                "workqueue" % (rel, n, m.group(1)))
            if rel in EXEMPT:
                continue
            for kind, pat in PATTERNS.items():
                for m in pat.finditer(line):
                    found.setdefault((kind, m.group(1), rel), "%s:%d" % (rel, n))
    for key in sorted(set(found) - listed):
        problems.append("%s: %s %s is not in the table of docs/workqueue.md (give it a reason "
                        "there, or make it a work item)" % (found[key], key[0], key[1]))
    for key in sorted(listed - set(found)):
        problems.append("docs/workqueue.md lists %s %s in %s, which the code does not have"
                        % key)
    print("%s 1 deferred_work_rule (%d entries checked)" % ("not ok" if problems else "ok",
                                                           len(found)))
    for p in problems:
        print("    # " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
