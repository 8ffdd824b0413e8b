#!/usr/bin/env python3
"""Check baton's rule that the workqueue is the only deferred-work mechanism.

docs/workqueue.md has a table of every kernel thread that is not a worker,
every timer callback, every interrupt handler and every cross-CPU call that
does not wait for its function (smp_call_function_single/_many or
on_each_cpu with a wait argument other than `true`), each with its file and
a reason. This script finds those in the kernel sources (arch/ kernel/
drivers/ lib/; tests are exempt) and compares both ways: an entry in the
code that the table lacks, or a stale row, is an error. The table's "free"
rows (memory freed later by something other than a work item) cannot be
found automatically; for those it checks that the function named is still
defined in the file named. It also rejects tasklets and softirqs anywhere
outside comments, code entering BH context (BH_OFFSET added to the
preemption count) anywhere but the workqueue's BH pools
(kernel/workqueue/bh.c: bottom halves are BH workqueue items, run only
there), and an include of the benchmark's
baselines of the models cmwq replaced (kernel/tools/bench_models.h) by any
file outside kernel/tools/.

Prints one "ok"/"not ok" line per check (KTAP-like) and exits 1 on failure.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DIRS = ["arch", "kernel", "drivers", "lib"]
# The definitions of the mechanisms themselves are not users of them.
EXEMPT = {"kernel/kthread.c", "kernel/kthread.h", "kernel/timer.c", "kernel/timer.h",
          "arch/x86_64/traps.c", "arch/x86_64/traps.h"}
PATTERNS = {
    "thread": re.compile(r"\bkthread_(?:create(?:_on_cpu|_on_mask)?|run)\s*\(\s*(\w+)"),
    "timer": re.compile(r"\btimer_setup\s*\([^,]+,\s*(\w+)"),
    "irq": re.compile(r"\birq_register_vector\s*\([^,]+,\s*(\w+)"),
}
# Cross-CPU calls: the callback is argument FN_ARG, wait is the last one.
CALLS = {"smp_call_function_single": (1, 4), "smp_call_function_many": (1, 4),
         "on_each_cpu": (0, 3)}
CALL_RE = re.compile(r"\b(%s)\s*\(" % "|".join(CALLS))
KINDS = ("thread", "timer", "irq", "call", "free")
# The benchmark's baselines (the models cmwq replaced) are no mechanism of
# the kernel: only the in-kernel tools and the tests may reach them.
BASELINES = re.compile(r'#include\s+"kernel/tools/bench_models\.h"')
BASELINE_USERS = ("kernel/tools/",)
FORBIDDEN = re.compile(r"\b(tasklet\w*|\w*softirq\w*)\b", re.I)
# Entering BH context: only the BH pools' runs do it.
BH_ENTRY = re.compile(r"\+\s*BH_OFFSET\b")
BH_RUNNER = "kernel/workqueue/bh.c"


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def call_args(code, open_paren):
    """The top-level arguments of the call whose "(" is at open_paren."""
    args, depth, start = [], 0, open_paren + 1
    for i in range(open_paren, len(code)):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(code[start:i].strip())
                return args
        elif c == "," and depth == 1:
            args.append(code[start:i].strip())
            start = i + 1
    return None


def unwaited_calls(code):
    """(callback, line) of every cross-CPU call whose wait is not `true`;
    prototypes and definitions (a type name before the function's) are not
    calls."""
    for m in CALL_RE.finditer(code):
        before = code[:m.start()].rstrip()
        word = re.search(r"(\w+)$", before)
        if word and word.group(1) != "return":
            continue  # "int on_each_cpu(...)": a declaration
        args = call_args(code, m.end() - 1)
        fn_arg, nargs = CALLS[m.group(1)]
        line = code.count("\n", 0, m.start()) + 1
        if args is None or len(args) != nargs:
            yield "?", line  # not a call this script understands: never listed
            continue
        if args[-1] not in ("true", "1"):
            yield args[fn_arg].lstrip("&"), line


def defines(code, name):
    return re.search(r"\b%s\s*\([^;{)]*\)\s*\{" % re.escape(name), code) is not None


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
        m = re.match(r"\|\s*(%s)\s*\|\s*(\w+)\s*\|\s*([\w./]+)\s*\|\s*(.*?)\s*\|\s*$"
                     % "|".join(KINDS), line)
        if m:
            if not m.group(4):
                sys.exit("check_deferred: row for %s gives no reason" % m.group(2))
            rows.add((m.group(1), m.group(2), m.group(3)))
    return rows


def main():
    doc = os.path.join(ROOT, "docs", "workqueue.md")
    listed = table(doc)
    frees = {row for row in listed if row[0] == "free"}
    listed -= frees
    missing_frees = set(frees)
    found, problems = {}, []
    for rel, path in sources():
        code = strip_comments(open(path, encoding="utf-8", errors="replace").read())
        for fn, n in unwaited_calls(code):
            found.setdefault(("call", fn, rel), "%s:%d" % (rel, n))
        for row in frees:
            if row[2] == rel and defines(code, row[1]):
                missing_frees.discard(row)
        for n, line in enumerate(code.split("\n"), 1):
            if BASELINES.search(line) and not rel.startswith(BASELINE_USERS):
                problems.append("%s:%d: includes the benchmark's baselines "
                                "(kernel/tools/bench_models.h): only kernel/tools/ and tests/ "
                                "may" % (rel, n))
            if BH_ENTRY.search(line) and rel != BH_RUNNER:
                problems.append("%s:%d: enters BH context: only the workqueue's BH pools (%s) "
                                "run bottom halves" % (rel, n, BH_RUNNER))
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
        if key[0] == "call":
            problems.append("%s: a cross-CPU call of %s that does not wait: not in the table of "
                            "docs/workqueue.md (wait for it, make it a work item, or give it a "
                            "reason there)" % (found[key], key[1]))
        else:
            problems.append("%s: %s %s is not in the table of docs/workqueue.md (give it a "
                            "reason there, or make it a work item)" % (found[key], key[0], key[1]))
    for key in sorted(missing_frees):
        problems.append("docs/workqueue.md lists the deferred free %s in %s, which the code does "
                        "not define" % key[1:])
    for key in sorted(listed - set(found)):
        problems.append("docs/workqueue.md lists %s %s in %s, which the code does not have"
                        % key)
    print("%s 1 deferred_work_rule (%d entries checked)" % ("not ok" if problems else "ok",
                                                           len(found) + len(frees)))
    for p in problems:
        print("    # " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
