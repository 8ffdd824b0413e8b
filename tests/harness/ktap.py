"""tests/harness/ktap.py - parse KTAP version 1 output (kernel and host tests).

parse(text) finds the first top-level "KTAP version 1" and returns a Report:
the top-level plan, one Suite per nested subtest (its plan and its cases,
each ok / not ok / skip, with the "# FAIL" diagnostics printed before it
and a SKIP's reason),
and a list of problems: a missing or short plan, a suite whose case count
disagrees with its plan, results out of order. Lines that are not KTAP
(boot messages, GRUB's screen) are ignored, so the parser reads a whole
serial log.
"""
import re

_VERSION = re.compile(r"^(\s*)KTAP version 1\s*$")
_PLAN = re.compile(r"^(\s*)1\.\.(\d+)\s*$")
_RESULT = re.compile(r"^(\s*)(ok|not ok) (\d+) ?(?:- )?([^#]*?)\s*(?:#\s*(SKIP|TODO)\b\s*(.*))?$")
_SUBTEST = re.compile(r"^\s*# Subtest: (.*)$")
_DIAG = re.compile(r"^\s*# (.*)$")


class Case:
    def __init__(self, number, name, status, diagnostics, reason=""):
        self.number = number
        self.name = name
        self.status = status          # "pass", "fail" or "skip"
        self.diagnostics = diagnostics
        self.reason = reason          # what follows "# SKIP" (or "# TODO")


class Suite:
    def __init__(self, name):
        self.name = name
        self.plan = None
        self.cases = []
        self.result = None            # the top-level ok/not ok line's status


class Report:
    def __init__(self):
        self.found = False
        self.plan = None
        self.suites = []
        self.problems = []

    def cases(self):
        for s in self.suites:
            for c in s.cases:
                yield s, c

    def counts(self):
        n = {"pass": 0, "fail": 0, "skip": 0}
        for _, c in self.cases():
            n[c.status] += 1
        return n


def parse(text):
    rep = Report()
    lines = text.replace("\r", "").split("\n")
    i = 0
    while i < len(lines):
        m = _VERSION.match(lines[i])
        if m and m.group(1) == "":
            break
        i += 1
    if i == len(lines):
        rep.problems.append("no KTAP output (no 'KTAP version 1' line)")
        return rep
    rep.found = True
    suite = None
    diags = []
    top_results = 0
    for line in lines[i + 1:]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        m = _PLAN.match(line)
        if m:
            if indent == 0:
                if rep.plan is None:
                    rep.plan = int(m.group(2))
            elif suite is not None and suite.plan is None:
                suite.plan = int(m.group(2))
            continue
        m = _SUBTEST.match(line)
        if m and indent > 0:
            suite = Suite(m.group(1).strip())
            rep.suites.append(suite)
            diags = []
            continue
        m = _RESULT.match(line)
        if m:
            ok = m.group(2) == "ok"
            num = int(m.group(3))
            name = m.group(4).strip()
            directive = m.group(5)
            reason = (m.group(6) or "").strip()
            status = "skip" if directive == "SKIP" else ("pass" if ok else "fail")
            if indent > 0:
                if suite is None:
                    suite = Suite("(unnamed)")
                    rep.suites.append(suite)
                if num != len(suite.cases) + 1:
                    rep.problems.append("suite %s: case %d out of order" % (suite.name, num))
                suite.cases.append(Case(num, name, status, diags, reason))
                diags = []
            else:
                top_results += 1
                if suite is not None and suite.result is None and suite.name == name:
                    suite.result = status
                elif len(rep.suites) < top_results:
                    # A top-level test without nested cases counts as one case.
                    s = Suite(name)
                    s.plan = 1
                    s.cases.append(Case(1, name, status, diags, reason))
                    s.result = status
                    rep.suites.append(s)
                suite = None
                diags = []
            continue
        if _VERSION.match(line):
            continue
        m = _DIAG.match(line)
        if m:
            diags.append(m.group(1))
    if rep.plan is None:
        rep.problems.append("no top-level plan (1..N)")
    elif top_results < rep.plan:
        rep.problems.append("plan 1..%d but only %d results" % (rep.plan, top_results))
    elif top_results > rep.plan:
        rep.problems.append("plan 1..%d but %d results" % (rep.plan, top_results))
    for s in rep.suites:
        if s.plan is None:
            rep.problems.append("suite %s has no plan" % s.name)
        elif len(s.cases) != s.plan:
            rep.problems.append("suite %s: plan 1..%d but %d cases" % (s.name, s.plan, len(s.cases)))
        if s.result is None:
            rep.problems.append("suite %s has no result line" % s.name)
        elif (s.result == "fail") != any(c.status == "fail" for c in s.cases):
            rep.problems.append("suite %s: result disagrees with its cases" % s.name)
    return rep
