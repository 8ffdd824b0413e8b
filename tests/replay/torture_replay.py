#!/usr/bin/env python3
"""Deterministic torture runs: search seeds, replay a failure, shrink it.

A deterministic run (make torture DETERMINISTIC=1, docs/stress-testing.md)
is QEMU under -icount with everything random drawn from one seed; its log
starts with a header line (run_tests.det_header()) that holds the seed, the
QEMU configuration, the kernel command line and, for a lab's image
(LAB=NAME, docs/labs.md), the lab. From a log alone:

  torture_replay.py replay LOG    run it again; the new log must be
                                  byte-identical (same image); write the
                                  trace of the moments before the first
                                  violation as Perfetto JSON and SVG
  torture_replay.py shrink LOG    find a smaller run that fails the same way:
                                  fewer cycles, CPUs, stress threads, delay
                                  points; print its replay command and trace
  torture_replay.py search ...    seeds one after another until a run fails

"The same way" is the first violation's message with the numbers and item
names taken out ("item X: N executions at once (one on cpuN)").

Python 3 standard library only.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))  # tests/
from harness import run_tests  # noqa: E402

RUN_TIMEOUT = 1800      # host seconds for one run (a -smp 4 run of 300 cycles takes ~5)
VIOLATION = re.compile(r"^\[ *([0-9.]+)\]\[cpu\d+\] torture: violation 1: (.*?)\r?$", re.M)
FIRST_CYCLE = re.compile(r"torture: the first violation came during cycle (\d+)")


class Config:
    """A deterministic run: seed, QEMU configuration, kernel parameters."""

    def __init__(self, seed, smp, mem, machine, params, lab=None):
        self.seed, self.smp, self.mem, self.machine = int(seed), str(smp), mem, machine
        self.params = dict(params)      # kernel parameters beside test/panic/deterministic
        self.lab = lab or None          # a lab's image (run_tests.lab_iso()), or the build's

    @classmethod
    def from_log(cls, path):
        with open(path, "rb") as f:
            first = f.readline().decode("utf-8", "replace").rstrip("\r\n")
        if not first.startswith(run_tests.DET_HEADER):
            raise SystemExit("%s: not a deterministic run's log (its first line is not "
                             "'%s...'): only those replay" % (path, run_tests.DET_HEADER))
        return cls.from_header(json.loads(first[len(run_tests.DET_HEADER):]))

    @classmethod
    def from_boot(cls, boot):
        return cls.from_header(json.loads(run_tests.det_header(boot)[len(run_tests.DET_HEADER):]))

    @classmethod
    def from_header(cls, h):
        params = {}
        for tok in h["cmdline"].split():
            k, _, v = tok.partition("=")
            if k not in ("test", "panic", "deterministic"):
                params[k] = v
        return cls(h["seed"], h["smp"], h["mem"], h["machine"], params, h.get("lab"))

    def cmdline(self):
        return " ".join("%s=%s" % (k, v) if v != "" else k for k, v in self.params.items())

    def boot(self, name):
        return run_tests.Boot(name, "hotplug_torture", smp=self.smp, mem=self.mem,
                              machine=self.machine, extra_cmdline=self.cmdline(),
                              timeout=RUN_TIMEOUT, deterministic=self.seed,
                              must_contain=[run_tests.TORTURE_PASS],
                              log_check=run_tests.check_torture_verdict, lab=self.lab)

    def copy(self, **changes):
        c = Config(self.seed, self.smp, self.mem, self.machine, self.params, self.lab)
        for k, v in changes.items():
            setattr(c, k, v)
        return c

    def make_command(self):
        """The make command that runs exactly this configuration."""
        p = dict(self.params)
        cycles = int(p.pop("torture_cycles", "0") or 0)
        duration = int(p.pop("torture_duration_s", "0") or 0)
        interval = int(p.pop("torture_interval_ms", "0") or 0)
        p.pop("torture_trace", None)
        rest = " ".join("%s=%s" % (k, v) for k, v in p.items())
        cmd = "make torture %sDETERMINISTIC=1 SEED=%d SMP=%s MEM=%s MACHINE=%s" % (
            run_tests.lab_make_args(self.lab), self.seed, self.smp, self.mem, self.machine)
        cmd += " CYCLES=%d" % cycles if cycles else " DURATION=%d" % duration
        if interval:
            cmd += " INTERVAL=%d" % interval
        if rest:
            cmd += " TORTURE_ARGS='%s'" % rest
        return cmd

    def size(self):
        """What shrinking makes smaller, most important first."""
        sites = self.params.get("delay_points", "all")
        n_sites = 9 if sites == "all" else 0 if sites == "none" else len(sites.split(","))
        return (int(self.params.get("torture_cycles", "0") or 10 ** 9),
                int(self.smp.split(",")[0]), int(self.params.get("torture_threads", "4")),
                n_sites)


def failure_kind(log):
    """The first violation, its guest time, and its kind (numbers and item
    names taken out), or None for a run without one."""
    m = VIOLATION.search(log)
    if not m:
        return None
    msg = m.group(2)
    kind = run_tests.failure_key(re.sub(r"\b(item|timer) \S+", r"\1 X", msg))
    return {"time": m.group(1), "message": msg, "kind": kind}


def run(config, name, logdir, manifest):
    """Run config; returns (failure or None, log path, log text, the
    harness's problems, host seconds)."""
    boot = config.boot(name)
    iso = run_tests.lab_iso(ISO[0], config.lab) if config.lab else ISO[0]
    cases, problems, log_path, secs = run_tests.run_boot(boot, iso, logdir, manifest)
    with open(log_path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return failure_kind(text), log_path, text, problems, secs


ISO = [None]    # the image every run boots (--iso), or beside which its lab's is


def replay_command(target, config, log):
    """make torture-replay or torture-shrink of log, with its lab's image."""
    return "make %s %sLOG=%s" % (target, run_tests.lab_make_args(config.lab), log)


def check_lab(a, config):
    """The run booted a lab's image: make must have built that one (LAB=)."""
    if (config.lab or "") != a.lab:
        raise SystemExit("%s: the run booted %s: %s" % (
            a.log, "lab %s's image" % config.lab if config.lab else "the build's image, not a "
            "lab's", replay_command("torture-" + a.cmd, config, a.log)))


def write_trace(log_path, out_base):
    """The trace dump in log_path as out_base.json and out_base.svg; returns
    the two paths, or None if the log holds no dump."""
    with open(log_path, "rb") as f:
        if b"trace: begin" not in f.read():
            return None
    script = os.path.join(HERE, "..", "..", "scripts", "trace2json.py")
    r = subprocess.run([sys.executable, script, log_path, "-o", out_base + ".json", "--svg",
                        out_base + ".svg", "--title", "baton torture: the moments before the "
                        "first violation"], capture_output=True, text=True)
    if r.returncode:
        print("trace2json failed: %s" % r.stderr.strip())
        return None
    print("  %s" % r.stderr.strip())
    return out_base + ".json", out_base + ".svg"


def say_failure(f, log_path):
    print("  failed at guest time %s s: %s" % (f["time"], f["message"]))
    print("  log: %s" % log_path)


def cmd_replay(a, logdir, manifest):
    orig = Config.from_log(a.log)
    check_lab(a, orig)
    with open(a.log, "rb") as fh:
        orig_bytes = fh.read()
    orig_fail = failure_kind(orig_bytes.decode("utf-8", "replace"))
    print("replay: %s" % orig.make_command())
    ok = True
    for i in range(a.times):
        name = "torture-replay" if a.times == 1 else "torture-replay-%d" % (i + 1)
        f, log_path, text, problems, secs = run(orig, name, logdir, manifest)
        with open(log_path, "rb") as fh:
            new_bytes = fh.read()
        same = new_bytes == orig_bytes
        print("run %d (%.0f s): %s" % (i + 1, secs, "the same log, byte for byte" if same else
                                      "the log differs from byte %d" % first_difference(
                                          orig_bytes, new_bytes)))
        if f:
            say_failure(f, log_path)
        else:
            print("  no violation" + ("; %s" % "; ".join(problems) if problems else ""))
        if orig_fail and (not f or f["time"] != orig_fail["time"] or
                          f["message"] != orig_fail["message"]):
            print("  NOT the original failure (%s at %s s)" % (orig_fail["message"],
                                                               orig_fail["time"]))
            ok = False
        if not same:
            ok = False
        if f and i == 0:
            paths = write_trace(log_path, os.path.join(logdir, "torture-replay.trace"))
            if paths:
                print("trace of the moments before it: %s (Perfetto: ui.perfetto.dev), %s" %
                      paths)
    if not ok:
        print("the replay did not repeat the run: same image? (make builds it; a different "
              "build runs differently)")
    return 0 if ok else 1


def first_difference(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def candidates(c, first_cycle):
    """Smaller configurations to try, in order."""
    out = []
    cycles = int(c.params.get("torture_cycles", "0") or 0)
    if first_cycle and (not cycles or first_cycle < cycles):
        p = dict(c.params)
        p["torture_cycles"] = str(first_cycle)
        p.pop("torture_duration_s", None)
        out.append(("cycles %d" % first_cycle, c.copy(params=p)))
    if cycles and cycles > 1 and not first_cycle:
        p = dict(c.params)
        p["torture_cycles"] = str(cycles // 2)
        out.append(("cycles %d" % (cycles // 2), c.copy(params=p)))
    smp = int(c.smp.split(",")[0])
    if smp > 2 and "," not in c.smp:
        out.append(("-smp %d" % (smp - 1), c.copy(smp=str(smp - 1))))
    threads = int(c.params.get("torture_threads", "4"))
    if threads > 1:
        p = dict(c.params)
        p["torture_threads"] = str(threads - 1)
        out.append(("%d stress threads" % (threads - 1), c.copy(params=p)))
    sites = c.params.get("delay_points", "all")
    names = ALL_SITES if sites == "all" else [] if sites == "none" else sites.split(",")
    for s in names:
        rest = [x for x in names if x != s]
        p = dict(c.params)
        p["delay_points"] = ",".join(rest) if rest else "none"
        out.append(("without delay point %s" % s, c.copy(params=p)))
    return out


ALL_SITES = ["work_start", "worker_sleep", "queue", "cpu_dying", "trustee", "rebind", "migrate",
             "sched_dying", "timer_move"]


def cmd_shrink(a, logdir, manifest):
    best = Config.from_log(a.log)
    check_lab(a, best)
    with open(a.log, "rb") as fh:
        text = fh.read().decode("utf-8", "replace")
    target = failure_kind(text)
    if not target:
        raise SystemExit("%s: this run has no violation to shrink" % a.log)
    print("shrinking: %s" % best.make_command())
    print("  fails with: %s (kind: %s)" % (target["message"], target["kind"]))
    best_log = a.log
    m = FIRST_CYCLE.search(text)
    first_cycle = int(m.group(1)) if m else 0
    runs = 0
    improved = True
    while improved and runs < a.max_runs:
        improved = False
        for what, cand in candidates(best, first_cycle):
            if runs >= a.max_runs:
                break
            for k in range(a.seeds):
                c = cand if k == 0 else cand.copy(seed=cand.seed + k)
                runs += 1
                f, log_path, text, problems, secs = run(c, "torture-shrink-%d" % runs, logdir,
                                                        manifest)
                same = f is not None and f["kind"] == target["kind"]
                print("  try %-28s seed %-6d %s" % (what, c.seed,
                                                    "fails the same way" if same else
                                                    "fails otherwise: " + f["message"] if f else
                                                    "passes"))
                if same:
                    best, best_log = c, log_path
                    m = FIRST_CYCLE.search(text)
                    first_cycle = int(m.group(1)) if m else 0
                    improved = True
                    break
            if improved:
                break
    print("smallest run found (%d runs tried):" % runs)
    print("  %s" % best.make_command())
    print("  replay: " + replay_command("torture-replay", best, best_log))
    with open(best_log, "rb") as fh:
        say_failure(failure_kind(fh.read().decode("utf-8", "replace")), best_log)
    paths = write_trace(best_log, os.path.join(logdir, "torture-shrink.trace"))
    if paths:
        print("trace of the moments before it: %s, %s" % paths)
    return 0


def cmd_search(a, logdir, manifest):
    """Seeds first..last until one fails; prints how many it took."""
    for i, seed in enumerate(range(a.first, a.last + 1)):
        c = Config.from_boot(run_tests.torture_boot(a.duration, a.interval, a.smp, seed, a.mem,
                                                    a.machine, True, a.cycles, a.args,
                                                    lab=a.lab))
        f, log_path, text, problems, secs = run(c, "torture-search", logdir, manifest)
        print("seed %-6d %s (%.0f s)" % (seed, "FAILS: " + f["message"] if f else
                                         "passes" if not problems else
                                         "fails: " + problems[0], secs), flush=True)
        if f:
            kept = os.path.join(logdir, "torture-search-seed%d.log" % seed)
            os.replace(log_path, kept)
            print("found after %d seed(s): %s" % (i + 1, c.make_command()))
            print("replay: " + replay_command("torture-replay", c, kept))
            return 0
    print("no failure in seeds %d..%d" % (a.first, a.last))
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iso", default="build/baton.iso")
    ap.add_argument("--build", default="build")
    ap.add_argument("--lab", default="", help="lab NAME's image, built beside --iso (LAB=)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("replay")
    r.add_argument("log")
    r.add_argument("--times", type=int, default=1, help="replay this many times")
    s = sub.add_parser("shrink")
    s.add_argument("log")
    s.add_argument("--seeds", type=int, default=2,
                   help="seeds tried per smaller configuration (the log's, then the next ones)")
    s.add_argument("--max-runs", type=int, default=40)
    f = sub.add_parser("search")
    f.add_argument("--first", type=int, default=1)
    f.add_argument("--last", type=int, default=100)
    f.add_argument("--smp", default="4")
    f.add_argument("--mem", default="512M")
    f.add_argument("--machine", default="q35")
    f.add_argument("--cycles", type=int, default=300)
    f.add_argument("--duration", type=int, default=60)
    f.add_argument("--interval", type=int, default=0)
    f.add_argument("--args", default="", help="more kernel parameters")
    a = ap.parse_args()
    ISO[0] = a.iso
    logdir = os.path.join(a.build, "test-logs")
    os.makedirs(logdir, exist_ok=True)
    manifest = run_tests.load_manifest(a.build)
    sys.exit({"replay": cmd_replay, "shrink": cmd_shrink, "search": cmd_search}[a.cmd](
        a, logdir, manifest))


if __name__ == "__main__":
    main()
