#!/usr/bin/env python3
"""tests/harness/bench.py - baton's benchmarks and their targets (`make bench`).

Boots the kernel with `bench=all` (kernel/tools/bench.h) under QEMU's
`-icount shift=3,sleep=off`: one virtual CPU at a time, each instruction
8 ns of guest time, idle time skipped. The figures are then a count of
guest instructions, the same on a busy machine as on an idle one, which is
what lets the targets below be checked at all (wall-clock figures on these
shared machines vary by several times; they never gate anything).

Prints one line per benchmark with its target, then one table per
comparison scenario (kernel/tools/bench_compare.h: cmwq against the
dedicated-thread and thread-per-item models, the trustee against
drain-first offline) with the claims checked on them; writes
BUILD/bench.json (every figure, for comparing runs and for
scripts/bench_plots.py) and keeps the serial log in
BUILD/test-logs/bench.log. Exit status 1 if the boot failed, a figure is
missing or a target or claim was missed, or the chain scenario stalled in
cmwq or a thread per item (chain_problems(), with any --only).

That boot runs with the lock validator off (lockdep=0): its figures are
the kernel's own cost. With --lean-iso, the burst and the sleepers run
again on the LEAN=1 image (Makefile: the kernel's checks and trace, replay
and validator hooks and frame pointers compiled out), the rows cmwq-lean:
the floor of the path cmwq needs, and what the default build's checks add
to it. A third boot runs the time benchmarks (sleeps,
slices, an idle CPU's interrupts) again with nohz=off, the periodic
100 Hz tick baton had before, for the table that compares the two (under
"nohz_off" in bench.json). Last, two idle -smp 4 guests, one of each kind,
without -icount (real time): the host CPU time QEMU spends on each over
IDLE_SECONDS, read from /proc/PID/stat (under "idle_host" in bench.json).
Before those, the wall-clock table (under "wallclock"): WALL_BENCHES in
real time, as `make run` runs them, with the host as it is and with its
CPUs kept busy (figures only: nothing on wall time passes or fails). A second boot, with the validator on, runs the
LOCKDEP_BENCHES again; bench.py prints them against the first boot's
(off, on, ratio), checks the "on" figures against LOCKDEP_TARGETS, and
records the validator's table use ("bench: lockdep: ..." at the end of
that boot), under "lockdep" in bench.json; its serial log is
BUILD/test-logs/bench-lockdep.log.

  bench.py --iso build/baton.iso [--build build] [--smp 4] [--only LIST]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # tests/
from harness import qemu  # noqa: E402

ICOUNT = "shift=3,sleep=off"
NS_PER_INSN = 8         # shift=3: every guest instruction is 2**3 ns of guest time
HOG_THRESH_US = 10000   # wq_cpu_intensive_thresh_us's default (kernel/workqueue/adapt.c)
TIMEOUT = 1800
LINE = re.compile(r"\] bench: (\w+): n (\d+) min (\d+) median (\d+) max (\d+) (\w+)\r?$", re.M)

# name: (largest median allowed, why that bound is the claim worth holding).
# Each bound is the median measured at -smp 4 (docs/bench.md) plus 25%,
# rounded: the figures are deterministic, so a regression of a quarter
# fails; the comparison's claims (claims() below) say what the design
# promises. The sleeps' bounds are the promise itself (timers expire when
# due: a sleep lasts its time and a wake-up), on the maximum too
# (MAX_TARGETS).
TARGETS = {
    "wake_same": (14000, "a wake-up on one CPU: about 1400 instructions measured"),
    "wake_cross": (22400, "a cross-CPU wake-up: one IPI more (2242 instructions measured)"),
    "queue_same": (15700, "queueing wakes an idle worker (1571 instructions measured)"),
    "queue_cross": (24100, "the same to another CPU's pool (2414 measured)"),
    "queue_unbound": (20900, "the same through an unbound pool (2090 measured)"),
    "sleepers": (12800, "8 items sleeping 10 ms run side by side: 10.2 ms measured (one "
                        "worker per CPU would need 80)"),
    "offline_idle": (240, "offlining a CPU with no work is cheap: 151 us measured"),
    "offline_busy": (1060, "cpu_down does not wait for 1000 pending items (125 ms of work): "
                           "297 us measured"),
    "online": (510, "bringing a CPU back, INIT-SIPI-SIPI without the legacy pauses: 407 us "
                    "measured"),
    "sleep_10ms": (10100000, "a 10 ms sleep lasts at most 10.1 ms"),
    "sleep_1ms": (1050000, "a 1 ms sleep lasts at most 1.05 ms"),
    "sleep_100us": (150000, "a 100 us sleep lasts at most 150 us"),
    "sleep_10ms_busy": (10100000, "the same beside a CPU-bound thread"),
    "sleep_1ms_busy": (1050000, "the same beside a CPU-bound thread"),
    "sleep_100us_busy": (150000, "the same beside a CPU-bound thread"),
    "slices": (6734, "3 CPU-bound threads switch at their slice, 20 ms / 3, within 1%"),
    "timer_arm_cancel": (4100, "arming and cancelling a timeout: 410 instructions measured"),
    "timer_arm_cancel_64": (5670, "the same among 64 pending: 567 instructions measured"),
    "mem_boot": (780, "the booted kernel's pages in use: 624 KiB measured, 64 of them the "
                      "16 KiB BH stack of each of the 4 CPUs"),
    "mem_worker": (20, "a worker costs its 16 KiB stack and a little (cmwq's point: few "
                       "workers)"),
    "lock_spin": (690, "spin_lock + spin_unlock: 69 instructions measured"),
    "lock_nested3": (1970, "A -> B -> C and back: 197 instructions measured"),
    "lock_mutex": (2470, "mutex_lock + mutex_unlock, uncontended: 246 instructions measured"),
    "lock_flush_idle": (860, "flush_work() of an item never queued: 102 instructions measured"),
    "irq_bh": (10200, "an interrupt to its BH item's start: 1016 instructions measured"),
    "irq_bh_busy": (10200, "the same on a busy CPU: the BH run needs no thread switch"),
    "serial_bh": (11900, "COM1 receive to the consumer through the BH rx item: 1191 "
                         "instructions measured"),
    "irq_gap_bh": (18400, "a CPU-bound thread's longest gap across an interrupt and its BH "
                          "run: 1838 instructions measured"),
}

# The BH workqueue's claims (bh_claims()): each pair (BH, thread) and what
# the BH side must do against the thread side, or alone.
BH_PAIRS = [("irq_bh", "irq_thread"), ("irq_bh_busy", "irq_thread_busy"),
            ("serial_bh", "serial_thread")]
BH_LATENCY_RATIO = 0.75   # a BH item starts in at most 3/4 of a thread item's time
BH_RUN_MAX_INSN = 1300    # what one BH run of an empty item adds to the thread under it
BH_FLOOD_SHARE_MIN = 40   # percent of its CPU a thread keeps under endless BH work

# name: (largest maximum allowed, why).
MAX_TARGETS = {
    "sleep_10ms": (10100000, "no 10 ms sleep over 10.1 ms"),
    "sleep_1ms": (1050000, "no 1 ms sleep over 1.05 ms"),
    "sleep_100us": (150000, "no 100 us sleep over 150 us"),
    "sleep_10ms_busy": (10100000, "none over 10.1 ms beside a CPU-bound thread"),
    "sleep_1ms_busy": (1050000, "none over 1.05 ms beside a CPU-bound thread"),
    "sleep_100us_busy": (150000, "none over 150 us beside a CPU-bound thread"),
    "idle_irqs": (0, "an idle CPU with no timer takes no timer interrupt"),
}

# The wake-up and queue-to-start figures before the periodic tick went
# (make bench at commit d8612a0, lockdep=0): the tickless kernel keeps
# each within 10% of them (claim "hot_paths_kept").
BEFORE_TICKLESS = {"wake_same": 12200, "wake_cross": 19744, "queue_same": 14616,
                   "queue_cross": 21040, "queue_unbound": 18112}

# The third boot: the time benchmarks again with the periodic tick (nohz=off).
NOHZ_OFF_BENCHES = ["sleep_10ms", "sleep_1ms", "sleep_100us", "sleep_10ms_busy",
                    "sleep_1ms_busy", "sleep_100us_busy", "slices", "idle_irqs"]
IDLE_SECONDS = 30

# The second boot: the validator on (its default; lockdep=1 says so). What
# it runs, and the ceilings on its medians: measured (docs/bench.md) plus
# 25%, as above, so that a regression in the validator's hot path (the
# chain-cache hit) fails.
LOCKDEP_BENCHES = ["lock_spin", "lock_nested3", "lock_mutex", "lock_flush_idle", "wake_same",
                   "queue_same"]
LOCKDEP_TARGETS = {
    "lock_spin": (2900, "a cached acquire + release: 290 instructions measured"),
    "lock_nested3": (8980, "three, nested: 898 instructions measured"),
    "lock_mutex": (9100, "the mutex and its wait_lock twice: 910 instructions measured"),
    "lock_flush_idle": (2980, "the item's pseudo-lock pair: 298 instructions measured"),
    "wake_same": (32200, "a wake-up with its locks validated: 3222 instructions measured"),
    "queue_same": (33300, "queueing with its locks validated: 3332 instructions measured"),
}
LOCKDEP_LINE = re.compile(r"\] bench: lockdep: (.*?)\r?$", re.M)


CMP_LINE = re.compile(r"\] bench: cmp (\w+) ([\w-]+) (.*?)\r?$", re.M)
MODELS = ["cmwq", "dedicated", "thread-per-item"]


def parse_compare(log):
    """{scenario: [{"row": ROW, key: int, ...}, ...]} from the "cmp" lines."""
    out = {}
    for m in CMP_LINE.finditer(log):
        scenario, row, rest = m.groups()
        fig = {"row": row}
        for kv in rest.split():
            k, v = kv.split("=", 1)
            fig[k] = int(v)
        out.setdefault(scenario, []).append(fig)
    return out


def find(cmp, scenario, row, **match):
    for f in cmp.get(scenario, []):
        if f["row"] == row and all(f.get(k) == v for k, v in match.items()):
            return f
    return None


def ms(ns):
    return "%.1f" % (ns / 1e6)


def us(ns):
    return "%.1f" % (ns / 1e3)


def table(title, header, rows):
    """Print a plain-text table; return it as Markdown for the docs."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else []
    print("\n" + title)
    for r in [header] + rows:
        print("  " + "  ".join(str(x).rjust(w) if i else str(x).ljust(w)
                               for i, (x, w) in enumerate(zip(r, widths))))
    md = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    md += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "**%s**\n\n%s\n" % (title, "\n".join(md))


def compare_tables(cmp):
    """One table per scenario (rows: models; columns: metrics), as text on
    stdout; returns the same tables in Markdown."""
    md = []
    rows = []
    for mdl in MODELS + ["cmwq-lean"]:  # cmwq-lean: the LEAN=1 image (main())
        f = find(cmp, "burst", mdl)
        if f:
            rows.append([mdl, f["items"], "%.0f" % (f["ns"] / NS_PER_INSN / f["items"]),
                         "%.0f" % (f["queue_ns"] / NS_PER_INSN / f["items"]),
                         "%.3f" % (f["switches"] / f["items"]),
                         "%.0f" % (f["items"] / (f["ns"] / 1e9))])
    md.append(table("burst: 10,000 empty items queued on one CPU, then flushed",
                    ["model", "items", "instructions/item", "of which queueing",
                     "switches/item", "items/s"], rows))
    ns = sorted({f["n"] for f in cmp.get("sleepers", [])})
    rows = []
    for mdl in MODELS + ["cmwq-lean"]:
        for key, label in (("ns", mdl), ("first_ns", mdl + ", first round")):
            if key == "first_ns" and mdl != "cmwq":
                continue    # the baselines make no thread on demand: both rounds alike
            figs = [find(cmp, "sleepers", mdl, n=n) for n in ns]
            rows.append([label] + [ms(f[key]) if f else "-" for f in figs])
    md.append(table("sleepers: N items sleeping 10 ms on one CPU, first queued to last done (ms)",
                    ["model"] + ["N=%d" % n for n in ns], rows))
    rows = []
    for mdl in MODELS:
        f = find(cmp, "mixed", mdl)
        if f:
            rows.append([mdl, f["cpus"], f["items"], ms(f["ns"]), ms(f["spin_ns"]),
                         ms(f["block_ns"])])
    md.append(table("mixed: per CPU 32 CPU-bound 1 ms items and 32 sleeping 10 ms",
                    ["model", "cpus", "items", "all done (ms)", "last CPU-bound (ms)",
                     "last sleeper (ms)"], rows))
    rows = []
    for mdl in MODELS:
        f = find(cmp, "chain", mdl)
        if f:
            rows.append([mdl, f["depth"], "yes" if f["completed"] else "STALLED", f["reached"],
                         ms(f["ns"]) if f["completed"] else "gave up at %s" % ms(f["ns"])])
    md.append(table("chain: item i queues item i+1 on the same queue and waits for it",
                    ["model", "depth", "completed", "deepest item run", "time (ms)"], rows))
    rows = []
    for f in cmp.get("threads", []):
        rows.append([f["row"], f["wqs"], f["cpus"], f["idle"], f["busy"], f["idle_stack_kib"],
                     f["busy_stack_kib"]])
    # (bench.json also has the pages in use added, *_mem_kib: the allocator's
    # own reaping of dead threads moves them by whole stacks either way.)
    md.append(table("threads: workqueues on every CPU, idle and with one blocked item per "
                    "queue per CPU",
                    ["model", "wqs", "cpus", "threads idle", "threads loaded",
                     "their stacks idle (KiB)", "their stacks loaded (KiB)"], rows))
    rows = []
    for f in cmp.get("offline", []):
        rows.append([f["row"], f["pending"], f["started_before_down"], us(f["down_ns"]),
                     us(f["dead_ns"]), ms(f["last_item_ns"])])
    md.append(table("offline: cpu_down with pending CPU-bound 1 ms items",
                    ["offline", "pending", "started before cpu_down", "cpu_down (us)",
                     "until the CPU died (us)", "last item done (ms)"], rows))
    rows = []
    for mdl in MODELS:
        i, b = find(cmp, "latency_idle", mdl), find(cmp, "latency_busy", mdl)
        if i and b:
            rows.append([mdl, us(i["p50_ns"]), us(i["p99_ns"]), us(i["max_ns"]),
                         us(b["p50_ns"]), us(b["p99_ns"]), us(b["max_ns"])])
    md.append(table("latency: queue to start (us), idle CPU and CPU busy with CPU-bound items",
                    ["model", "idle p50", "idle p99", "idle max", "busy p50", "busy p99",
                     "busy max"], rows))
    rows = []
    for f in cmp.get("storm", []):
        rows.append([f["row"], f["n"], f["created"], f["peak_threads"], ms(f["all_started_ns"]),
                     "%.1f" % (f["reap_ns"] / 1e9), f["left"],
                     "%s, %s, %s" % (f.get("again1", "-"), f.get("again2", "-"),
                                     f.get("again3", "-"))])
    md.append(table("storm: 256 items blocking at once on one CPU (cmwq: then again every 2 s)",
                    ["model", "items", "threads created", "peak", "all started (ms)",
                     "extra threads gone after (s)", "kept", "made by the storms 2 s apart"],
                    rows))
    rows = []
    for f in cmp.get("shortblock", []):
        rows.append([f["row"], f["items"], ms(f["ns"]), f["created"], f["switches"],
                     f["workers"], f["deferred"]])
    md.append(table("shortblock: 256 items on one CPU, each 5 us of work and a block of 20-200 us "
                    "(before: no hold, no pace, no hog detection; hold-N: the hold at N us; "
                    "cmwq: the defaults)",
                    ["policy", "items", "all done (ms)", "workers made", "context switches",
                     "workers after", "creations held"], rows))
    rows = []
    for f in cmp.get("latency_busy", []):
        if not f["row"].startswith("thresh-"):
            continue
        b, h = find(cmp, "burst", f["row"]), find(cmp, "latency_hog", f["row"])
        rows.append([f["row"][7:], us(f["p50_ns"]), us(f["p99_ns"]), f.get("hogs", "-"),
                     us(h["p50_ns"]) if h else "-", us(h["p99_ns"]) if h else "-",
                     "%.0f" % (b["ns"] / NS_PER_INSN / b["items"]) if b else "-"])
    md.append(table("hog: queue to start behind CPU-bound items of 1 ms (ordinary work) and of "
                    "100 ms (a hog), items marked CPU-intensive, and the burst's cost, by CPU-hog "
                    "threshold (0: no detection)",
                    ["threshold", "behind 1 ms p50 (us)", "behind 1 ms p99 (us)",
                     "1 ms items marked", "behind a hog p50 (us)", "behind a hog p99 (us)",
                     "burst instructions/item"], rows))
    return "\n".join(md)


def claims(cmp):
    """The claims the comparison backs, each (name, ok, text): the RFC's
    promises put as numbers (docs/bench.md says where each comes from)."""
    def get(scenario, row, **match):
        f = find(cmp, scenario, row, **match)
        if f is None:
            raise KeyError("%s %s %s" % (scenario, row, match))
        return f

    def sleepers64():
        c, d = get("sleepers", "cmwq", n=64), get("sleepers", "dedicated", n=64)
        r = d["ns"] / c["ns"]
        return r >= 48, "64 sleepers on one CPU: cmwq %.1fx faster than dedicated " \
                        "(target >= 48x; the limit is 64x)" % r

    def threads16():
        c, d = get("threads", "cmwq", wqs=16), get("threads", "dedicated", wqs=16)
        return c["idle"] * 8 <= d["idle"], "16 workqueues, idle: cmwq %d threads, dedicated " \
                                           "%d (target: at most 1/8)" % (c["idle"], d["idle"])

    def burst_switches():
        c = get("burst", "cmwq")
        r = c["switches"] / c["items"]
        return r <= 0.05, "burst: cmwq %.4f context switches per item (target <= 0.05)" % r

    def burst_instructions():
        c = get("burst", "cmwq-lean")
        r = c["ns"] / NS_PER_INSN / c["items"]
        return r <= 400, "burst: cmwq %.0f instructions per item, queue + run, on the path " \
                         "cmwq needs (LEAN=1; target <= 400)" % r

    def burst_checks():
        c, lean = get("burst", "cmwq"), get("burst", "cmwq-lean")
        r = c["ns"] / lean["ns"]
        return r <= 1.5, "burst: the default build's checks and hooks: %.0f instructions per " \
                         "item, %.2fx the lean build's (target <= 1.5x)" % (
                             c["ns"] / NS_PER_INSN / c["items"], r)

    def offline1000():
        t, d = get("offline", "trustee", pending=1000), get("offline", "drain-first",
                                                             pending=1000)
        r = d["down_ns"] / t["down_ns"]
        return r >= 10, "cpu_down with 1000 pending: trustee %.1fx faster than drain-first " \
                        "(target >= 10x)" % r

    def offline_flat():
        t1, t0 = get("offline", "trustee", pending=1000), get("offline", "trustee", pending=0)
        r = t1["down_ns"] / t0["down_ns"]
        return r <= 2, "cpu_down with the trustee: 1000 pending take %.2fx the time of " \
                       "none (target <= 2x)" % r

    def offline_flat_dead():
        t1, t0 = get("offline", "trustee", pending=1000), get("offline", "trustee", pending=0)
        r = t1["dead_ns"] / t0["dead_ns"]
        return r <= 2, "cpu_down with the trustee, until the CPU died: 1000 pending take " \
                       "%.2fx the time of none (target <= 2x)" % r

    def sleepers64_exact():
        c = get("sleepers", "cmwq", n=64)
        lean = find(cmp, "sleepers", "cmwq-lean", n=64)
        floor = "; the lean build %.2f ms" % (lean["ns"] / 1e6) if lean else ""
        return c["ns"] <= 11e6, "64 sleepers of 10 ms on one CPU: cmwq %.2f ms, first queued " \
                                "to last done (target <= 11 ms; the limit is 10 ms%s)" % (
                                    c["ns"] / 1e6, floor)

    def short_workers():
        b, c = get("shortblock", "before"), get("shortblock", "cmwq")
        return c["created"] * 4 <= b["created"], \
            "256 items blocking 20-200 us: %d workers made, %d before the hold " \
            "(target: at most 1/4)" % (c["created"], b["created"])

    def short_time():
        b, c = get("shortblock", "before"), get("shortblock", "cmwq")
        r = c["ns"] / b["ns"]
        return r <= 1.10, "256 items blocking 20-200 us: all done in %.1f ms, %.1f ms before " \
                          "the hold (%+.0f%%; target: no worse than +10%%)" % (
                              c["ns"] / 1e6, b["ns"] / 1e6, (r - 1) * 100)

    def storm_reaped():
        c = get("storm", "cmwq")
        return c["reap_ns"] <= 10e9, "after the storms, the extra workers are gone in %.1f s " \
                                     "(target: within 10 s)" % (c["reap_ns"] / 1e9)

    def storm_kept():
        c = get("storm", "cmwq")
        again = [c.get("again%d" % i, -1) for i in (1, 2, 3)]
        return max(again) * 10 <= c["n"], "the same storm every 2 s makes %s workers each " \
                                          "time after the first (target: under a tenth of its " \
                                          "%d items)" % (", ".join(map(str, again)), c["n"])

    def hog_bounded():
        c = get("latency_hog", "thresh-%dus" % HOG_THRESH_US)
        return c["p99_ns"] <= 2 * HOG_THRESH_US * 1e3, \
            "behind an item that spins 100 ms, queue to start p99 %.1f ms at the default " \
            "threshold of %d ms (target: within 2 thresholds)" % (c["p99_ns"] / 1e6,
                                                                   HOG_THRESH_US // 1000)

    def hog_not_ordinary():
        c = get("latency_busy", "thresh-%dus" % HOG_THRESH_US)
        return c["hogs"] == 0, "1 ms CPU-bound items marked CPU-intensive at the default " \
                               "threshold: %d (target: none)" % c["hogs"]

    out = []
    for fn in (sleepers64, sleepers64_exact, threads16, burst_switches, burst_instructions,
               burst_checks, offline1000,
               offline_flat, offline_flat_dead, short_workers, short_time, storm_reaped,
               storm_kept, hog_bounded, hog_not_ordinary):
        try:
            ok, text = fn()
        except KeyError as e:
            ok, text = False, "figures missing (%s)" % e
        out.append((fn.__name__, ok, text))
    return out


def chain_problems(cmp):
    """The chain scenario's verdicts, whatever else was run: cmwq and a
    thread per item must complete it, every item run (a worker or a
    thread for each waiting level); one thread per CPU must deadlock on
    it (else no item waited on its own queue, and the scenario tested
    nothing). A list of problems, each naming the model."""
    out = []
    for mdl in MODELS:
        f = find(cmp, "chain", mdl)
        if f is None:
            out.append("chain: no figures for %s" % mdl)
        elif mdl == "dedicated":
            if f["completed"]:
                out.append("chain: the dedicated model completed it (%s ms), but one thread "
                           "per CPU must deadlock on a chain: no item waited on its own "
                           "queue" % ms(f["ns"]))
        elif not f["completed"]:
            out.append("chain: %s stalled: it gave up after %s ms with item %d of %d the "
                       "deepest run (it must complete)" % (mdl, ms(f["ns"]), f["reached"],
                                                           f["depth"]))
        elif f["reached"] != f["depth"]:
            out.append("chain: %s completed, but its deepest item run is %d of %d" % (
                mdl, f["reached"], f["depth"]))
    return out


COMPARE_SCENARIOS = ["storm", "threads", "burst", "sleepers", "mixed", "chain", "latency",
                     "offline", "shortblock", "hog"]


def time_claims(figures):
    """The claims on time without a tick that single benchmarks back, each
    (name, ok, text)."""
    out = []
    f = figures.get("online")
    if f:
        out.append(("cpu_up_fast", f["median"] <= 2000,
                    "cpu_up: %d us (median; target <= 2 ms)" % f["median"]))
    worst, text = 0.0, []
    for name, before in BEFORE_TICKLESS.items():
        g = figures.get(name)
        if not g:
            continue
        r = g["median"] / before
        worst = max(worst, r)
        text.append("%s %+.1f%%" % (name, 100 * (r - 1)))
    if text:
        out.append(("hot_paths_kept", worst <= 1.10,
                    "wake-ups and queue-to-start against before the tick went: %s "
                    "(target: each within +10%%)" % ", ".join(text)))
    return out


def bh_claims(figures):
    """The BH workqueue's claims, each (name, ok, text), and its table."""
    out, rows = [], []
    worst, text = 0.0, []
    for bh, th in BH_PAIRS:
        f, g = figures.get(bh), figures.get(th)
        if not f or not g:
            continue
        r = f["median"] / g["median"]
        worst = max(worst, r)
        text.append("%s %d vs %s %d ns (%.2fx)" % (bh, f["median"], th, g["median"], r))
        rows.append([bh.replace("_bh", ""), f["median"], g["median"], "%.2fx" % r,
                     "%+d" % ((f["median"] - g["median"]) / NS_PER_INSN)])
    if text:
        out.append(("bh_latency", worst <= BH_LATENCY_RATIO,
                    "interrupt to bottom half, BH item against thread item: %s (target: each "
                    "at most %.2fx)" % ("; ".join(text), BH_LATENCY_RATIO)))
    f, g = figures.get("irq_gap"), figures.get("irq_gap_bh")
    if f and g:
        added = (g["median"] - f["median"]) / NS_PER_INSN
        out.append(("bh_run_cost", added <= BH_RUN_MAX_INSN,
                    "a BH run of an empty item adds %.0f instructions to the thread it comes in "
                    "on (gap %d -> %d ns; target <= %d)" % (added, f["median"], g["median"],
                                                           BH_RUN_MAX_INSN)))
    f = figures.get("bh_flood_share")
    if f:
        out.append(("bh_flood_share", f["min"] >= BH_FLOOD_SHARE_MIN,
                    "under endless BH work a CPU-bound thread keeps %d%% of its CPU (lowest of "
                    "%d windows of 100 ms; target >= %d%%: the budget hands the rest to a "
                    "thread the scheduler shares)" % (f["min"], f["n"], BH_FLOOD_SHARE_MIN)))
    md = table("bottom halves: interrupt to item start, BH item against a high-priority "
               "thread item (medians, ns)", ["path", "BH", "thread", "ratio",
                                             "instructions"], rows) if rows else ""
    return out, md


def nohz_off_report(a, figures, logdir, problems):
    """The third boot: the time benchmarks with the periodic tick
    (nohz=off), printed beside the tickless figures; what goes under
    "nohz_off" in bench.json."""
    names = [n for n in NOHZ_OFF_BENCHES if a.only == "all" or n in a.only.split(",")]
    if not names:
        return None
    log = boot(a, "bench-nohz-off", ",".join(names), 0, logdir, problems, "nohz=off")
    tick = parse(log)
    rows = []
    for name in names:
        f, g = figures.get(name), tick.get(name)
        if not g:
            problems.append("nohz=off: %s: no figures" % name)
            continue
        rows.append([name, g["unit"], f["median"] if f else "-", f["max"] if f else "-",
                     g["median"], g["max"]])
    tbl = table("time without a tick (default) and with the 100 Hz tick (nohz=off): "
                "medians and maxima", ["figure", "unit", "tickless median", "tickless max",
                                       "tick median", "tick max"], rows)
    return {"cmdline": "bench=%s panic=exit lockdep=0 nohz=off" % ",".join(names),
            "figures": tick, "table": tbl}


def host_cpu_s(pid):
    """User + system CPU seconds of a process so far (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as fp:
        f = fp.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def idle_host_report(a, logdir, problems):
    """Two idle -smp 4 guests at the shell prompt, tickless and nohz=off, no
    -icount (real time): the host CPU time QEMU spends on each over
    IDLE_SECONDS. Wall-clock figures of a shared machine: reported, and
    checked only as a ratio between the two, measured one after the other."""
    out = {}
    for label, cmdline in (("tickless", ""), ("tick", "nohz=off")):
        m = qemu.Machine(a.iso, name="bench-idle-%s" % label, smp=4, mem="512M",
                         machine="q35", cmdline=cmdline, workdir=logdir)
        try:
            m.start()
            m.expect(r"baton> ", 120)
            time.sleep(5)  # the boot's own timers (balancing, reaping) settle
            c0, t0 = host_cpu_s(m.proc.pid), time.time()
            time.sleep(IDLE_SECONDS)
            c1, t1 = host_cpu_s(m.proc.pid), time.time()
            out[label] = {"cpu_s": round(c1 - c0, 3), "wall_s": round(t1 - t0, 1),
                          "cmdline": cmdline}
        except (qemu.QemuError, OSError, TimeoutError) as e:
            problems.append("idle guest (%s): %s" % (label, e))
        finally:
            m.kill()
    for label, f in out.items():
        print("idle -smp 4 guest, %-8s: %.2f s of host CPU in %.0f s (%.1f%%)" % (
            label, f["cpu_s"], f["wall_s"], 100 * f["cpu_s"] / f["wall_s"]))
    return out


# The wall-clock table: the benchmarks users feel in `make run` (multi-
# threaded TCG, real time), WALL_N samples each, beside their -icount
# medians; once with the host as it is, once with the host's CPUs kept busy
# by niced loops, so that the time QEMU's vCPU threads wait for the host to
# wake them shows as a ratio of the same run (docs/bench.md, "Wall clock").
WALL_BENCHES = ["wake_same", "wake_cross", "queue_same", "queue_cross", "offline_idle", "online"]
WALL_N = 30
SAMPLES_LINE = re.compile(r"\] bench: (\w+): samples((?: \d+)+)\r?$", re.M)


def parse_samples(log):
    """{name: [samples, sorted]} from bench_samples=1 lines."""
    out = {}
    for m in SAMPLES_LINE.finditer(log):
        out.setdefault(m.group(1), []).extend(int(v) for v in m.group(2).split())
    return out


def busy_loops():
    """One niced busy loop per host CPU: the host's CPUs stay out of idle."""
    code = "import os\nos.nice(19)\nwhile True: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 1)]


def wallclock_boot(a, label, logdir, problems):
    cmdline = "bench=%s bench_n=%d bench_samples=1 panic=exit lockdep=0" % (
        ",".join(WALL_BENCHES), WALL_N)
    m = qemu.Machine(a.iso, name="bench-wall-%s" % label, smp=a.smp, mem="512M", machine="q35",
                     cmdline=cmdline, workdir=logdir, qmp=True)
    loops = busy_loops() if label == "busy" else []
    try:
        m.start()
        status = m.wait(TIMEOUT, nmi_on_timeout=True)
    finally:
        for p in loops:
            p.kill()
            p.wait()
    if status != 33:
        problems.append("wall clock (%s host): QEMU exit status %s (see %s)" % (label, status,
                                                                               m.log_path))
    return parse(m.output), parse_samples(m.output)


def wallclock_report(a, figures, logdir, problems):
    """WALL_BENCHES without -icount, host idle and host busy: figures only."""
    runs = {label: wallclock_boot(a, label, logdir, problems) for label in ("idle", "busy")}
    out = {}
    rows = []
    for name in WALL_BENCHES:
        f = figures.get(name)
        scale = 1000 if f and f["unit"] == "ns" else 1  # shown in us
        row = {"unit": "us", "icount_median": f["median"] / scale if f else None}
        for label, (figs, samples) in runs.items():
            v = samples.get(name)
            if not v or len(v) != WALL_N:
                problems.append("wall clock (%s host): %s: %s samples" % (
                    label, name, len(v) if v else "no"))
                continue
            row[label] = {"median": v[len(v) // 2] / scale, "p90": v[len(v) * 9 // 10] / scale,
                          "max": v[-1] / scale, "min": v[0] / scale}
        out[name] = row
        if "idle" in row and "busy" in row and row["icount_median"]:
            i, b = row["idle"], row["busy"]
            rows.append([name, "%.1f" % row["icount_median"], "%.1f" % i["median"],
                         "%.1f" % i["p90"], "%.1f" % i["max"],
                         "%.1fx" % (i["median"] / row["icount_median"]),
                         "%.1f" % b["median"], "%.1f" % b["p90"],
                         "%.1fx" % (i["median"] / b["median"])])
    md = table("wall clock (make run: q35, -smp %s, multi-threaded TCG), %d samples, us: host as "
               "it is, and its CPUs kept busy by niced loops" % (a.smp, WALL_N),
               ["figure", "-icount median", "median", "p90", "max", "/ -icount",
                "busy-host median", "busy-host p90", "idle / busy"], rows)
    return {"n": WALL_N, "figures": out, "table": md}


# Booting: the wall-clock time from QEMU's start to the kernel's exit after
# its first (one-sample) benchmark, at -smp 4 and 64 (q35, 1 GiB), BOOT_N
# boots each, and the kernel's own count of its CPU bring-up (smp_init():
# "N other CPUs brought up in X us, Y us each"), in wall clock and under
# -icount (guest instructions: the bring-up's own cost, the same on any host).
BOOT_SMPS = [4, 64]
BOOT_N = 3
BRINGUP_LINE = re.compile(r"smp: (\d+) other CPUs brought up in (\d+) us, (\d+) us each")


def boot_once(a, smp, icount, logdir, problems):
    """(wall seconds to exit, {"cpus", "us", "each_us"} or None) of one boot."""
    label = "bench-boot-smp%d-%s" % (smp, "icount" if icount else "wall")
    m = qemu.Machine(a.iso, name=label, smp=str(smp), mem="1G", machine="q35",
                     cmdline="bench=lock_spin bench_n=1 panic=exit lockdep=0", workdir=logdir,
                     qmp=True, extra=["-icount", ICOUNT] if icount else [])
    t0 = time.monotonic()
    m.start()
    status = m.wait(TIMEOUT, nmi_on_timeout=True)
    wall = time.monotonic() - t0
    if status != 33:
        problems.append("boot -smp %d: QEMU exit status %s (see %s)" % (smp, status, m.log_path))
    b = BRINGUP_LINE.search(m.output)
    if not b:
        problems.append("boot -smp %d: no bring-up line (see %s)" % (smp, m.log_path))
    return wall, ({"cpus": int(b.group(1)), "us": int(b.group(2)), "each_us": int(b.group(3))}
                  if b else None)


def boot_report(a, logdir, problems):
    """Wall-clock boot times and the bring-up's cost per CPU: figures only."""
    out, rows = {}, []
    for smp in BOOT_SMPS:
        _, ic = boot_once(a, smp, True, logdir, problems)
        walls, ups = [], []
        for _ in range(BOOT_N):
            w, up = boot_once(a, smp, False, logdir, problems)
            walls.append(w)
            if up:
                ups.append(up)
        walls.sort()
        ups.sort(key=lambda u: u["us"])
        med = ups[len(ups) // 2] if ups else None
        out[smp] = {"wall_s": walls, "bringup_wall": ups, "bringup_icount": ic}
        if ic and med:
            rows.append(["%d" % smp, "%.2f" % walls[len(walls) // 2], "%.2f" % walls[-1],
                         "%.1f" % (med["us"] / 1000), "%d" % med["each_us"],
                         "%.1f" % (ic["us"] / 1000), "%d" % ic["each_us"]])
    md = table("boot (q35, 1 GiB): QEMU start to exit after one benchmark, %d boots, wall "
               "clock; the kernel's bring-up of the other CPUs, wall clock (median boot) and "
               "-icount" % BOOT_N,
               ["-smp", "boot median (s)", "boot max (s)", "bring-up (ms)", "per CPU (us)",
                "-icount bring-up (ms)", "-icount per CPU (us)"], rows)
    return {"n": BOOT_N, "boots": out, "table": md}


def parse(log):
    """{name: {"n", "min", "median", "max", "unit"}} from a serial log."""
    out = {}
    for m in LINE.finditer(log):
        name, n, lo, med, hi, unit = m.groups()
        out[name] = {"n": int(n), "min": int(lo), "median": int(med), "max": int(hi),
                     "unit": unit}
    return out


def boot(a, name, only, lockdep, logdir, problems, extra_cmdline="", iso=None):
    """One bench= boot under -icount (of a.iso, or iso); its serial log
    (problems appended)."""
    # lockdep=0: the first boot measures the kernel itself, as its targets
    # always have; the validator's cost is the second boot's to show.
    cmdline = " ".join(x for x in ("bench=%s panic=exit lockdep=%d" % (only, lockdep),
                                   extra_cmdline) if x)
    m = qemu.Machine(iso or a.iso, name=name, smp=a.smp, mem="512M", machine="q35",
                     cmdline=cmdline, workdir=logdir, qmp=True, extra=["-icount", ICOUNT])
    print("bench: -smp %s, -icount %s, %s; serial log %s" % (a.smp, ICOUNT, cmdline,
                                                            m.log_path), flush=True)
    m.start()
    status = m.wait(TIMEOUT, nmi_on_timeout=True)
    log = m.output
    what = "" if name == "bench" else "%s: " % name
    if status is None:
        problems.append("%stimed out after %d s" % (what, TIMEOUT))
    elif status != 33:
        problems.append("%sQEMU exit status %s (33 is the kernel's success)" % (what, status))
    if "Kernel panic" in log or "WARNING:" in log:
        problems.append("%sthe kernel panicked or warned (see %s)" % (what, m.log_path))
    if lockdep and "BUG: lockdep" in log:
        problems.append("%sthe validator reported (see %s)" % (what, m.log_path))
    for line in log.splitlines():
        if "bench: " in line and ("skipped" in line or "failed" in line or "stalled" in line or
                                  "must deadlock" in line):
            print("  " + line.split("] ", 1)[-1])
    return log


def parse_lockdep(log):
    """The "bench: lockdep:" line: {"classes": [used, limit], ..., "hits": N, ...}."""
    m = LOCKDEP_LINE.search(log)
    if not m:
        return None
    out = {}
    words = m.group(1).split()
    for k, v in zip(words[::2], words[1::2]):
        used, _, limit = v.partition("/")
        out[k] = [int(used), int(limit)] if limit else int(used)
    return out


def lockdep_report(a, off, logdir, problems):
    """The second boot, validator on: the table of costs and the tables'
    use; returns what goes under "lockdep" in bench.json."""
    names = [n for n in LOCKDEP_BENCHES if a.only == "all" or n in a.only.split(",")]
    if not names:
        return None
    log = boot(a, "bench-lockdep", ",".join(names), 1, logdir, problems)
    on = parse(log)
    stats = parse_lockdep(log)
    rows = []
    out = {"cmdline": "bench=%s panic=exit lockdep=1" % ",".join(names), "figures": {},
           "stats": stats}
    for name in names:
        f, g = off.get(name), on.get(name)
        if not g:
            problems.append("lockdep=1: %s: no figures" % name)
            continue
        bound, why = LOCKDEP_TARGETS.get(name, (None, ""))
        ok = bound is None or g["median"] <= bound
        if not ok:
            problems.append("lockdep=1: %s: median %d %s, target %d" % (name, g["median"],
                                                                      g["unit"], bound))
        ratio = g["median"] / f["median"] if f and f["median"] else None
        added = (g["median"] - f["median"]) / NS_PER_INSN if f else None
        out["figures"][name] = {"off": f["median"] if f else None, "on": g["median"],
                                "unit": g["unit"], "ratio": ratio, "added_instructions": added,
                                "target": bound, "on_figures": g}
        rows.append([name, f["median"] if f else "-", g["median"], g["unit"],
                     "%.2fx" % ratio if ratio else "-", "%+.0f" % added if f else "-",
                     "%s <= %d: %s" % ("ok" if ok else "MISSED", bound, why) if bound else ""])
    out["table"] = table("the lock validator: medians with lockdep=0 (off) and on",
                         ["figure", "off", "on", "unit", "ratio", "instructions added",
                          "target (on)"], rows)
    if stats:
        print("lockdep tables at the end of that boot: " + ", ".join(
            "%s %d/%d (%.1f%%)" % (k, stats[k][0], stats[k][1], 100.0 * stats[k][0] / stats[k][1])
            for k in ("classes", "deps", "chains", "traces") if k in stats) +
            "; deepest %s held; chain cache %s hits, %s misses; %s reports" % (
                stats.get("depth"), stats.get("hits"), stats.get("misses"),
                stats.get("reports")))
        if stats.get("reports"):
            problems.append("lockdep=1: the validator reported %s time(s) (see the log)" %
                            stats["reports"])
    else:
        problems.append("lockdep=1: no \"bench: lockdep:\" line (was the validator on?)")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iso", default="build/baton.iso")
    ap.add_argument("--build", default="build")
    ap.add_argument("--smp", default="4")
    ap.add_argument("--only", default="all", help="comma-separated benchmark names")
    ap.add_argument("--lean-iso", help="the LEAN=1 image: the burst and the sleepers "
                    "again, on the path cmwq needs (the rows cmwq-lean)")
    a = ap.parse_args()
    logdir = os.path.join(a.build, "test-logs")
    os.makedirs(logdir, exist_ok=True)
    t0 = time.time()
    problems = []
    log = boot(a, "bench", a.only, 0, logdir, problems)
    figures = parse(log)
    wanted = list(dict.fromkeys(list(TARGETS) + list(MAX_TARGETS))) if a.only == "all" else \
        [n for n in a.only.split(",") if n not in COMPARE_SCENARIOS]
    print("%-19s %5s %10s %10s %10s %-4s  %s" % ("benchmark", "n", "min", "median", "max", "unit",
                                                "target (median)"))
    for name in wanted:
        f = figures.get(name)
        bound, why = TARGETS.get(name, (None, ""))
        if not f:
            problems.append("%s: no figures" % name)
            continue
        verdict = ""
        if bound is not None:
            ok = f["median"] <= bound
            verdict = "%s <= %d: %s" % ("ok" if ok else "MISSED", bound, why)
            if not ok:
                problems.append("%s: median %d %s, target %d" % (name, f["median"], f["unit"],
                                                                 bound))
        mbound, mwhy = MAX_TARGETS.get(name, (None, ""))
        if mbound is not None:
            ok = f["max"] <= mbound
            verdict += "%smax %s <= %d: %s" % ("; " if verdict else "", "ok" if ok else "MISSED",
                                                mbound, mwhy)
            if not ok:
                problems.append("%s: max %d %s, target %d" % (name, f["max"], f["unit"], mbound))
        print("%-19s %5d %10d %10d %10d %-4s  %s" % (name, f["n"], f["min"], f["median"], f["max"],
                                                    f["unit"], verdict))
    cmp = parse_compare(log)
    lean_names = [n for n in ("burst", "sleepers") if a.only == "all" or n in a.only.split(",")]
    if a.lean_iso and lean_names:
        lean = parse_compare(boot(a, "bench-lean", ",".join(lean_names), 0, logdir, problems,
                                  iso=a.lean_iso))
        for name in lean_names:
            rows = [dict(f, row="cmwq-lean") for f in lean.get(name, []) if f["row"] == "cmwq"]
            if not rows:
                problems.append("%s: no figures from the lean build" % name)
            cmp.setdefault(name, []).extend(rows)
    scenarios = [l.split("] ", 1)[-1] for l in log.splitlines() if ": done in " in l]
    wanted_cmp = [n for n in COMPARE_SCENARIOS if a.only == "all" or n in a.only.split(",")]
    # The hog sweep's rows are latency_busy and burst rows named thresh-N.
    hog_rows = any(f["row"].startswith("thresh-") for f in cmp.get("latency_busy", []))
    for name in wanted_cmp:
        if name not in cmp and not (name == "latency" and "latency_idle" in cmp) and \
                not (name == "hog" and hog_rows):
            problems.append("%s: no comparison figures" % name)
    if "chain" in wanted_cmp and "chain" in cmp:
        problems += chain_problems(cmp)
    md = ""
    verdicts = []
    bh, bh_md = bh_claims(figures)
    for name, ok, text in time_claims(figures) + bh:
        print("claim %-18s %s  %s" % (name, "ok    " if ok else "MISSED", text))
        verdicts.append({"claim": name, "ok": ok, "text": text})
        if not ok:
            problems.append("claim %s missed: %s" % (name, text))
    if cmp:
        md = compare_tables(cmp)
        print()
        for name, ok, text in claims(cmp) if a.only == "all" else []:
            print("claim %-18s %s  %s" % (name, "ok    " if ok else "MISSED", text))
            verdicts.append({"claim": name, "ok": ok, "text": text})
            if not ok:
                problems.append("claim %s missed: %s" % (name, text))
        for l in scenarios:
            print("  " + l)
    if bh_md:
        md += "\n" + bh_md
    lockdep = lockdep_report(a, figures, logdir, problems)
    if lockdep:
        md += "\n" + lockdep["table"]
    nohz_off = nohz_off_report(a, figures, logdir, problems)
    if nohz_off:
        md += "\n" + nohz_off["table"]
    wall = wallclock_report(a, figures, logdir, problems) if a.only == "all" else {}
    if wall:
        md += "\n" + wall["table"]
    boots = boot_report(a, logdir, problems) if a.only == "all" else {}
    if boots:
        md += "\n" + boots["table"]
    idle = idle_host_report(a, logdir, problems) if a.only == "all" else {}
    if "tickless" in idle and "tick" in idle:
        ok = idle["tickless"]["cpu_s"] * 2 <= idle["tick"]["cpu_s"]
        text = "an idle -smp 4 guest costs the host %.2f s of CPU in %d s tickless, %.2f s " \
               "with the tick (target: at most half)" % (idle["tickless"]["cpu_s"],
                                                         IDLE_SECONDS, idle["tick"]["cpu_s"])
        print("claim %-18s %s  %s" % ("idle_host", "ok    " if ok else "MISSED", text))
        verdicts.append({"claim": "idle_host", "ok": ok, "text": text})
        if not ok:
            problems.append("claim idle_host missed: %s" % text)
    with open(os.path.join(a.build, "bench.json"), "w") as fp:
        json.dump({"smp": a.smp, "icount": ICOUNT, "ns_per_instruction": NS_PER_INSN,
                   "cmdline": "bench=%s panic=exit lockdep=0" % a.only, "figures": figures,
                   "compare": cmp, "claims": verdicts, "lockdep": lockdep,
                   "nohz_off": nohz_off, "wallclock": wall, "boot": boots,
                   "idle_host": idle}, fp, indent=1)
    with open(os.path.join(a.build, "bench-tables.md"), "w") as fp:
        fp.write(md)
    for p in problems:
        print("bench: " + p)
    print("bench: %s (%.0f s)" % ("FAILED" if problems else "all targets met", time.time() - t0))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
