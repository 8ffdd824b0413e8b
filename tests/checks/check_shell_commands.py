#!/usr/bin/env python3
"""Check that the shell's command table is the one list of its commands.

The table `commands[]` in kernel/tools/shell.c (name, usage, help, function)
is what `help` prints. Two documents list the commands too, and must name
exactly the same ones:

  README.md, section "### The shell": the first column of its table; each
      `backticked` span there starts with a command name (`offline N`).
  docs/guide.md, section "## 6.": the "- **Shell.**" bullet; each
      `backticked` span that is a single word is a command name (spans of
      several words, like `make run` or `help COMMAND`, are not).

Prints KTAP-like lines, one case per command and document ("ok 3 - README.md
lists cpus"), plus one per document for names the table lacks, with "    # "
diagnostics under a failure; exits 1 if any case failed. run_tests.py counts
each case. --root DIR checks another tree (the repository by default).
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SPAN = re.compile(r"`([^`]+)`")


C_STRING = r'"((?:[^"\\]|\\.)*)"'


def table_entries(root=ROOT):
    """(name, usage, help) of each command in the table, its C string
    literals joined as the compiler joins them; None if there is no table.
    tests/vm/shell_tests.py checks what `help` prints against them."""
    src = open(os.path.join(root, "kernel", "tools", "shell.c"), encoding="utf-8").read()
    m = re.search(r"static const struct shell_cmd commands\[\] = \{(.*?)\n\};", src, re.S)
    if not m:
        return None
    entries = []
    for body in re.findall(r"\{((?:[^{}\"]|%s)*)\}" % C_STRING.replace("(", "(?:", 1), m.group(1)):
        fields, cur = [], None
        for tok in re.finditer(C_STRING + r"|,", body):
            if tok.group(0) == ",":
                if cur is not None:
                    fields.append(cur)
                cur = None
            else:
                cur = (cur or "") + re.sub(r"\\(.)", r"\1", tok.group(1))
        if len(fields) >= 3:
            entries.append(tuple(fields[:3]))
    return entries


def table_commands(root):
    entries = table_entries(root)
    return None if entries is None else [name for name, _, _ in entries]


def section(text, start, end):
    """The lines from the one matching start up to (not including) the next matching end."""
    lines, inside = [], False
    for line in text.split("\n"):
        if inside and re.match(end, line):
            break
        if re.match(start, line):
            inside = True
        if inside:
            lines.append(line)
    return lines


def readme_commands(root):
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    names = []
    for line in section(text, r"### The shell\s*$", r"#"):
        if not line.startswith("|") or re.match(r"\|\s*-", line) or re.match(r"\|\s*command\s*\|", line):
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        names += [span.split()[0] for span in SPAN.findall(first)]
    return names


def guide_commands(root):
    text = open(os.path.join(root, "docs", "guide.md"), encoding="utf-8").read()
    bullet = []
    for line in section(text, r"## 6\.", r"## "):
        if bullet and re.match(r"\s*- ", line):
            break
        if bullet or line.startswith("- **Shell.**"):
            bullet.append(line)
    spans = SPAN.findall(" ".join(bullet))
    return [s for s in spans if re.fullmatch(r"[a-z][a-z0-9_]*", s)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT)
    a = ap.parse_args()
    cases = []      # (ok, name, diagnostics)
    table = table_commands(a.root)
    cases.append((bool(table), "kernel/tools/shell.c has a command table",
                  [] if table else ["no 'static const struct shell_cmd commands[] = {...};' found"]))
    table = table or []
    docs = [("README.md", "its shell table", readme_commands(a.root)),
            ("docs/guide.md", "section 6, the Shell bullet", guide_commands(a.root))]
    for doc, where, listed in docs:
        for name in table:
            cases.append((name in listed, "%s lists %s" % (doc, name),
                          [] if name in listed else
                          ["%s (%s) does not list the command '%s' that kernel/tools/shell.c has"
                           % (doc, where, name)]))
        extra = sorted(set(listed) - set(table))
        cases.append((not extra, "%s lists no command the table lacks" % doc,
                      ["%s (%s) lists '%s', which is not in kernel/tools/shell.c's command table"
                       % (doc, where, name) for name in extra]))
    print("1..%d" % len(cases))
    for i, (ok, name, diags) in enumerate(cases, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        for d in diags:
            print("    # " + d)
    return 0 if all(ok for ok, _, _ in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
