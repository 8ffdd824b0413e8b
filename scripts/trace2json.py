#!/usr/bin/env python3
"""Turn a baton trace dump into Chrome/Perfetto trace-event JSON and an SVG.

The kernel's `trace dump` (shell) or a test prints, on the serial console:

    trace: begin N events (L lost) on C CPUs
    T <ns> <cpu> <event> <tid> <thread-name> <a-hex> <b-hex> <symbol-or->
    ...
    trace: end

Usage: trace2json.py LOG [-o trace.json] [--svg timeline.svg] [--last]
  LOG may contain anything else (boot messages, prompts); the last (or,
  by default, the first) begin/end block is used.

The JSON (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nXsKchNAZU)
opens in https://ui.perfetto.dev or chrome://tracing:
  process "CPUs"     one track per CPU: which thread ran when (from switches)
  process "workers"  one track per worker: each work item as a slice, with
                     instants for sleep / wake / create / destroy / rescue
  process "hotplug"  CPU phases, trustee state changes and maydays
  process "hotplug steps"  one track per CPU taken down or up: each cpu_down
                     and cpu_up as a slice (args: its result), the steps it
                     ran nested in it (cpuhp_enter to cpuhp_exit, named by
                     callback and direction; args: the CPU that ran it, the
                     result), a rollback's steps and operations inside the
                     one they undo
  process "bottom halves"  one track per CPU: each BH run (bh_run to
                     bh_end: args the thread it came in on top of, who ran
                     it: an interrupt's exit, the continuation or a drain)
                     with the BH items it ran nested in it (args: context)
  process "clock events"  one track per CPU: the clock event programmed
                     (args: its deadline), its interrupts, the timers they
                     ran and the fair slices they ended

The SVG is drawn by hand (no plotting package needed): one row per CPU and
per worker, work items as bars labelled with their function, blocks as
gaps, a row per CPU taken down or up with its operations and their steps as
nested bars, hotplug phases as vertical lines, clock-event interrupts as ticks
under their CPU's row. The hotplug events are named under the rows, each
label in the first lane where it clears the labels and leader lines already
placed (place_labels(): right to left, so a leader never crosses a label);
the picture grows to fit the lanes. --cpu-svg draws one CPU alone, its time without a
tick: what ran, when the clock event was programmed and for when, when it
fired and what for (a timer, a slice's end), and the idle stretches
(docs/clock-events.svg).

Python 3 standard library only.
"""
import argparse
import html
import json
import re
import sys

LINE = re.compile(r"^T (\d+) (\d+) (\w+) (\d+) (\S+) ([0-9a-f]+) ([0-9a-f]+) (\S+)")
CPU_PHASES = ["down-begin", "dying", "dead", "up-begin", "starting", "online", "down-failed",
              "up-failed", "stopped"]
# Which CPU phases end an operation (kernel/trace.h): the kind they end and
# whether it succeeded.
OP_ENDS = {2: ("cpu_down", True), 6: ("cpu_down", False), 5: ("cpu_up", True), 7: ("cpu_up", False),
           8: (None, True)}  # stopped at a level between: ends the innermost operation
OP_BEGINS = {0: "cpu_down", 3: "cpu_up"}
TRUSTEE = ["none", "in-charge", "done"]
BH_RUNNERS = ["irq exit/idle/bh enable", "continuation", "drain"]


class TraceError(Exception):
    pass


def parse(text, last=False):
    """Return (events, header) from the chosen begin/end block."""
    blocks, cur, header = [], None, None
    for raw in text.splitlines():
        line = raw.strip("\r")
        if line.startswith("trace: begin"):
            cur, header = [], line
        elif line.startswith("trace: end") and cur is not None:
            blocks.append((cur, header))
            cur = None
        elif cur is not None:
            m = LINE.match(line)
            if m:
                ns, cpu, ev, tid, name, a, b, sym = m.groups()
                cur.append({"ns": int(ns), "cpu": int(cpu), "ev": ev, "tid": int(tid),
                            "name": name, "a": int(a, 16), "b": int(b, 16), "sym": sym})
    if not blocks:
        raise TraceError("no complete 'trace: begin' ... 'trace: end' block in the log")
    return blocks[-1] if last else blocks[0]


def func_name(sym):
    return sym.split("+", 1)[0] if sym != "-" else "?"


def to_chrome(events):
    """Chrome trace-event JSON (a dict with traceEvents)."""
    out, names = [], {}
    if not events:
        return {"traceEvents": [], "displayTimeUnit": "ns"}
    t0 = events[0]["ns"]

    def us(ns):
        return (ns - t0) / 1000.0

    cpus = sorted({e["cpu"] for e in events} | {e["a"] for e in events if e["ev"] == "cpu"})
    out.append({"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "CPUs"}})
    out.append({"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "workers"}})
    out.append({"ph": "M", "pid": 3, "name": "process_name", "args": {"name": "hotplug"}})
    out.append({"ph": "M", "pid": 4, "name": "process_name", "args": {"name": "clock events"}})
    for c in cpus:
        out.append({"ph": "M", "pid": 1, "tid": c, "name": "thread_name", "args": {"name": "cpu%d" % c}})
        out.append({"ph": "M", "pid": 4, "tid": c, "name": "thread_name", "args": {"name": "cpu%d" % c}})
    # CPU tracks: a slice from each switch to the next on that CPU.
    running = {}
    for e in events:
        names[e["tid"]] = e["name"]
        if e["ev"] != "switch":
            continue
        prev = running.get(e["cpu"])
        if prev and not prev["name"].startswith("idle/"):
            out.append({"ph": "X", "pid": 1, "tid": e["cpu"], "name": prev["name"],
                        "ts": us(prev["ns"]), "dur": max(us(e["ns"]) - us(prev["ns"]), 0.001),
                        "args": {"tid": prev["tid"]}})
        running[e["cpu"]] = e
    end_ns = events[-1]["ns"]
    for cpu, prev in running.items():
        if not prev["name"].startswith("idle/"):
            out.append({"ph": "X", "pid": 1, "tid": cpu, "name": prev["name"], "ts": us(prev["ns"]),
                        "dur": max(us(end_ns) - us(prev["ns"]), 0.001), "args": {"tid": prev["tid"]}})
    # Worker tracks; a BH run's items go on their CPU's "bottom halves"
    # track instead (pid 6): they run in whatever thread the interrupt
    # came in on top of, which is no worker.
    workers = set()
    open_items = {}
    bh_open, bh_cpus = {}, set()
    for e in events:
        ev = e["ev"]
        in_bh = bool(bh_open.get(e["cpu"]))
        if ev == "bh_run":
            bh_open.setdefault(e["cpu"], []).append(e)
            bh_cpus.add(e["cpu"])
        elif ev == "bh_end":
            r = bh_open.get(e["cpu"], [])
            s = r.pop() if r else None
            start = s["ns"] if s else events[0]["ns"]
            how = BH_RUNNERS[s["b"]] if s and s["b"] < len(BH_RUNNERS) else "?"
            out.append({"ph": "X", "pid": 6, "tid": e["cpu"], "name": "bh run (pool %d)" % e["a"],
                        "ts": us(start), "dur": max(us(e["ns"]) - us(start), 0.001),
                        "args": {"on_top_of": s["name"] if s else "?", "by": how,
                                 "work_left": bool(e["b"])}})
        elif ev == "start":
            open_items[(e["tid"], e["a"])] = dict(e, bh=in_bh)
            if not in_bh:
                workers.add(e["tid"])
        elif ev == "end":
            s = open_items.pop((e["tid"], e["a"]), None)
            start = s["ns"] if s else events[0]["ns"]
            bh = s["bh"] if s else in_bh
            out.append({"ph": "X", "pid": 6 if bh else 2, "tid": e["cpu"] if bh else e["tid"],
                        "name": func_name(e["sym"]), "ts": us(start),
                        "dur": max(us(e["ns"]) - us(start), 0.001),
                        "args": {"work": hex(e["a"]), "cpu_at_end": e["cpu"],
                                 "context": "BH, on top of " + e["name"] if bh else "worker"}})
            if not bh:
                workers.add(e["tid"])
        elif ev in ("sleep", "wake", "create", "destroy", "rescue"):
            args = {"pool": e["a"], "cpu": e["cpu"]}
            if ev == "sleep" and e["b"]:
                args["woke_worker_tid"] = e["b"]
            out.append({"ph": "i", "s": "t", "pid": 2, "tid": e["tid"], "name": ev, "ts": us(e["ns"]),
                        "args": args})
            workers.add(e["tid"])
        elif ev == "queue":
            out.append({"ph": "i", "s": "t", "pid": 1, "tid": e["cpu"], "name": "queue " + func_name(e["sym"]),
                        "ts": us(e["ns"]), "args": {"work": hex(e["a"]), "by": e["name"]}})
        elif ev == "cpu":
            phase = CPU_PHASES[e["b"]] if e["b"] < len(CPU_PHASES) else str(e["b"])
            out.append({"ph": "i", "s": "g", "pid": 3, "tid": 0, "name": "cpu%d %s" % (e["a"], phase),
                        "ts": us(e["ns"])})
        elif ev == "trustee":
            state = TRUSTEE[e["b"]] if e["b"] < len(TRUSTEE) else str(e["b"])
            out.append({"ph": "i", "s": "p", "pid": 3, "tid": 1, "name": "pool %d trustee %s" % (e["a"], state),
                        "ts": us(e["ns"])})
        elif ev == "hog":
            out.append({"ph": "i", "s": "t", "pid": 2, "tid": e["tid"],
                        "name": "cpu hog " + func_name(e["sym"]), "ts": us(e["ns"]),
                        "args": {"pool": e["a"], "cpu": e["cpu"]}})
            workers.add(e["tid"])
        elif ev == "mayday":
            out.append({"ph": "i", "s": "p", "pid": 3, "tid": 2, "name": "mayday pool %d" % e["a"],
                        "ts": us(e["ns"])})
        elif ev == "program":
            args = {"deadline_us": us(e["a"]) if e["a"] else None, "delta_ns": e["b"]}
            out.append({"ph": "i", "s": "t", "pid": 4, "tid": e["cpu"],
                        "name": "programmed" if e["a"] else "cancelled", "ts": us(e["ns"]),
                        "args": args})
        elif ev == "clockevent":
            out.append({"ph": "i", "s": "t", "pid": 4, "tid": e["cpu"], "name": "interrupt",
                        "ts": us(e["ns"]), "args": {"due_us": us(e["a"]) if e["a"] else None}})
        elif ev == "timer":
            out.append({"ph": "i", "s": "t", "pid": 4, "tid": e["cpu"],
                        "name": "timer " + func_name(e["sym"]), "ts": us(e["ns"]),
                        "args": {"timer": hex(e["a"])}})
        elif ev == "slice":
            out.append({"ph": "i", "s": "t", "pid": 4, "tid": e["cpu"], "name": "slice end " + e["name"],
                        "ts": us(e["ns"]), "args": {"stint_us": e["a"] / 1000.0}})
    for tid in sorted(workers):
        out.append({"ph": "M", "pid": 2, "tid": tid, "name": "thread_name",
                    "args": {"name": "%s (%d)" % (names.get(tid, "?"), tid)}})
    if bh_cpus:
        out.append({"ph": "M", "pid": 6, "name": "process_name", "args": {"name": "bottom halves"}})
    for c in sorted(bh_cpus):
        out.append({"ph": "M", "pid": 6, "tid": c, "name": "thread_name",
                    "args": {"name": "cpu%d BH" % c}})
    hotplug_steps(events, out, us)
    out.append({"ph": "M", "pid": 3, "tid": 0, "name": "thread_name", "args": {"name": "CPU phases"}})
    out.append({"ph": "M", "pid": 3, "tid": 1, "name": "thread_name", "args": {"name": "trustees"}})
    out.append({"ph": "M", "pid": 3, "tid": 2, "name": "thread_name", "args": {"name": "maydays"}})
    return {"traceEvents": out, "displayTimeUnit": "ns"}


def hotplug_steps(events, out, us):
    """The "hotplug steps" process: per target CPU, each operation's slice
    with its steps' slices nested in it (args: depth, for the SVG)."""
    stacks, cpus = {}, set()

    def close(cpu, i, end_ns, name, args):
        kind, start, _ = stacks[cpu][i]
        del stacks[cpu][i:]  # anything left open inside ends with it
        args["depth"] = i
        out.append({"ph": "X", "pid": 5, "tid": cpu, "name": name, "ts": us(start),
                    "dur": max(us(end_ns) - us(start), 0.001), "args": args})
        cpus.add(cpu)

    for e in events:
        if e["ev"] == "cpu":
            stack = stacks.setdefault(e["a"], [])
            if e["b"] in OP_BEGINS:
                stack.append((OP_BEGINS[e["b"]], e["ns"], None))
            elif e["b"] in OP_ENDS:
                kind, ok = OP_ENDS[e["b"]]
                i = next((i for i in range(len(stack) - 1, -1, -1)
                          if stack[i][0] == kind or (kind is None and stack[i][0] != "step")), None)
                if i is not None:  # (an end without its begin: a finished half-way offline)
                    kind = stack[i][0]
                    close(e["a"], i, e["ns"], "%s cpu%d" % (kind, e["a"]),
                          {"result": "stopped at a step" if e["b"] == 8 else
                           "done" if ok else "failed, undone"})
        elif e["ev"] in ("cpuhp_enter", "cpuhp_exit"):
            cpu, down, err = e["a"] & 0xFFFFFFFF, (e["a"] >> 32) & 1, (e["a"] >> 40) & 0xFFF
            name = "%s %s" % (func_name(e["sym"]), "down" if down else "up")
            stack = stacks.setdefault(cpu, [])
            if e["ev"] == "cpuhp_enter":
                stack.append(("step", e["ns"], name))
                continue
            i = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][2] == name), None)
            if i is not None:
                close(cpu, i, e["ns"], name, {"result": -err, "ran_on": "cpu%d" % e["cpu"]})
    if cpus:
        out.append({"ph": "M", "pid": 5, "name": "process_name", "args": {"name": "hotplug steps"}})
    for c in sorted(cpus):
        out.append({"ph": "M", "pid": 5, "tid": c, "name": "thread_name",
                    "args": {"name": "cpu%d hotplug" % c}})


# The advance of a monospace glyph, in em (DejaVu Sans Mono's); an upper
# bound for the sans-serif labels too. A label's box is its text's advance
# wide, from 0.8 em above its baseline to 0.2 em below.
CHAR_EM = 0.6


def text_width(text, size):
    return len(text) * CHAR_EM * size


def place_labels(items, size, gap=6):
    """Lanes for labels under a row of event marks. items: [(x, text)], each
    label to start at x + 2 with a leader line from its mark at x down to its
    lane. Returns each item's lane (0 is the nearest). Greedy, right to left:
    a label takes the first lane whose taken part (labels, and the leader
    lines of deeper lanes passing through) begins at least `gap` after the
    label's end; so no two labels overlap and no leader crosses a label."""
    frontier = []  # per lane: the leftmost x taken so far
    lanes = [0] * len(items)
    for i in sorted(range(len(items)), key=lambda i: -items[i][0]):
        x, text = items[i]
        end = x + 2 + text_width(text, size) + gap
        lane = next((k for k, f in enumerate(frontier) if end <= f), len(frontier))
        if lane == len(frontier):
            frontier.append(float("inf"))
        for k in range(lane + 1):
            frontier[k] = min(frontier[k], x)
        lanes[i] = lane
    return lanes


MARK_COLOURS = {0: "#d00", 1: "#1760b0", 2: "#8a2be2"}  # CPU phases, trustees, maydays


def color(s):
    h = 0
    for ch in s:
        h = (h * 131 + ord(ch)) & 0xFFFFFF
    return "hsl(%d,60%%,62%%)" % (h % 360)


def to_svg(trace, title="baton trace"):
    """A plain SVG timeline of the slices and the hotplug instants."""
    evs = trace["traceEvents"]
    rows, labels = [], {}
    for e in evs:
        if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] in (1, 2, 5):
            labels[(e["pid"], e["tid"])] = e["args"]["name"]
    for key in sorted(labels):
        rows.append(key)
    slices = [e for e in evs if e["ph"] == "X"]
    marks = [e for e in evs if e["ph"] == "i" and e["pid"] == 3]
    fired = [e for e in evs if e["ph"] == "i" and e["pid"] == 4 and e["name"] == "interrupt"]
    blocks = [e for e in evs if e["ph"] == "i" and e["pid"] == 2 and e["name"] == "sleep"]
    t_end = max([s["ts"] + s["dur"] for s in slices] + [m["ts"] for m in marks] + [1.0])
    left, width, row_h, top = 170, 1000, 22, 40
    scale = width / t_end
    label_size, lane_h = 9, 11
    bottom = top + row_h * len(rows)
    lanes = place_labels([(left + m["ts"] * scale, m["name"]) for m in marks], label_size)
    ends = [left + m["ts"] * scale + 2 + text_width(m["name"], label_size) for m in marks]
    svg_w = int(max([left + width + 20] + [e + 10 for e in ends]))
    height = bottom + 12 + lane_h * (max(lanes) if lanes else 0) + 16
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" '
         'font-size="11">' % (svg_w, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="20" font-size="14">%s (%.1f ms)</text>' % (html.escape(title), t_end / 1000)]
    index = {key: i for i, key in enumerate(rows)}
    for key, i in index.items():
        y = top + i * row_h
        o.append('<text x="10" y="%d">%s</text>' % (y + 15, html.escape(labels[key])))
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ddd"/>' % (left, y + row_h, left + width,
                                                                         y + row_h))
    for s in slices:
        i = index.get((s["pid"], s["tid"]))
        if i is None:
            continue
        x, w = left + s["ts"] * scale, max(s["dur"] * scale, 1)
        # A hotplug step sits inside its operation: deeper, lower and thinner.
        depth = min(s.get("args", {}).get("depth", 0), 3) if s["pid"] == 5 else 0
        y = top + i * row_h + 3 + 3 * depth
        o.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %.0f us</title></rect>'
                 % (x, y, w, row_h - 6 - 3 * depth, color(s["name"]), html.escape(s["name"]),
                    s["dur"]))
        if w > 60 and not depth:  # (nested steps: their names in the tooltip)
            o.append('<text x="%.1f" y="%d">%s</text>' % (x + 2, y + 12, html.escape(s["name"][:int(w / 7)])))
    for f in fired:  # clock-event interrupts: a tick under their CPU's row
        i = index.get((1, f["tid"]))
        if i is not None:
            x, y = left + f["ts"] * scale, top + (i + 1) * row_h
            o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="red"><title>clock event'
                     '</title></line>' % (x, y - 4, x, y))
    for b in blocks:
        i = index.get((2, b["tid"]))
        if i is not None:
            x, y = left + b["ts"] * scale, top + i * row_h
            o.append('<path d="M%.1f %d l-4 -6 h8 z" fill="black"><title>blocks</title></path>' % (x, y + 8))
    # The hotplug events: a dashed line across the rows, on as a leader to
    # the event's name in its lane under them.
    for m, lane in zip(marks, lanes):
        x = left + m["ts"] * scale
        y = bottom + 12 + lane_h * lane
        c = MARK_COLOURS.get(m["tid"], "#d00")
        o.append('<line class="leader" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" '
                 'stroke-dasharray="3,3"/>' % (x, top, x, y - 8, c))
        o.append('<text class="label" x="%.1f" y="%d" fill="%s" font-size="%d">%s</text>'
                 % (x + 2, y, c, label_size, html.escape(m["name"])))
    o.append("</svg>")
    return "\n".join(o)


def to_svg_cpu(events, cpu, title="one CPU's clock events"):
    """One CPU's time without a tick, as an SVG: what ran (idle as a grey
    band), and under it each programming of the clock event (a blue mark,
    with a dashed line to the deadline it set; a cross for "none"), each
    interrupt (red), the timers it ran (green) and the fair slices it
    ended (orange)."""
    evs = [e for e in events if e["cpu"] == cpu]
    if not evs:
        raise TraceError("no events on cpu%d" % cpu)
    t0, t1 = evs[0]["ns"], events[-1]["ns"]  # to the end of the trace: idle shows
    left, width, top = 20, 1100, 50
    scale = width / max(t1 - t0, 1)

    def x(ns):
        return left + (ns - t0) * scale

    # The timers run and the slices ended, named under the clock event's
    # line in lanes (place_labels()).
    cy, label_size, lane_h = top + 75, 10, 13
    labels = [(x(e["ns"]), "green", func_name(e["sym"])) if e["ev"] == "timer" else
              (x(e["ns"]), "#e80", "slice end: " + e["name"])
              for e in evs if e["ev"] in ("timer", "slice")]
    lanes = place_labels([(xe, text) for xe, _, text in labels], label_size)
    label_bottom = cy + 22 + lane_h * max(lanes + [3])
    svg_w = int(max([left + width + 120] + [xe + 2 + text_width(t, label_size) + 10
                                           for xe, _, t in labels]))
    o = ['<text x="%d" y="20" font-size="14">%s: cpu%d, %.1f ms</text>' % (
        left, html.escape(title), cpu, (t1 - t0) / 1e6)]
    # Time axis, every millisecond.
    step = max(1, int((t1 - t0) / 1e6 / 60))
    for ms in range(0, int((t1 - t0) / 1e6) + 1, step):
        xm = x(t0 + ms * 1e6)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (xm, top - 5, xm,
                                                                             label_bottom + 5))
        if ms % (5 * step) == 0:
            o.append('<text x="%.1f" y="%d" fill="#888">%d ms</text>' % (xm, top - 8, ms))
    # Row 1: what ran, a colour per thread in order of appearance.
    palette = ["#4c8bd6", "#e3a33b", "#6bbf6b", "#b07cc6", "#d66b6b", "#5fb8b8"]
    colours = {}
    o.append('<text x="%d" y="%d" fill="#444">running</text>' % (left, top + 12))
    run, ry = None, top + 18
    for e in evs + [{"ev": "switch", "ns": t1, "name": "", "tid": 0}]:
        if e["ev"] != "switch":
            continue
        if run is not None:
            idle = run["name"].startswith("idle/")
            w = max(x(e["ns"]) - x(run["ns"]), 0.5)
            if not idle and run["name"] not in colours:
                colours[run["name"]] = palette[len(colours) % len(palette)]
            o.append('<rect x="%.1f" y="%d" width="%.1f" height="22" fill="%s"><title>%s</title>'
                     '</rect>' % (x(run["ns"]), ry, max(w, 1.5),
                                  "#e8e8e8" if idle else colours[run["name"]],
                                  html.escape(run["name"])))
            if w > 40:
                o.append('<text x="%.1f" y="%d">%s</text>' % (x(run["ns"]) + 3, ry + 15,
                                                              html.escape(run["name"][:int(w / 7)])))
        run = e
    # Row 2: the clock event.
    o.append('<text x="%d" y="%d" fill="#444">clock event</text>' % (left, cy - 22))
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#bbb"/>' % (left, cy, left + width, cy))
    for e in evs:
        xe = x(e["ns"])
        if e["ev"] == "program":
            if e["a"]:
                xd = min(x(e["a"]), left + width)
                o.append('<path d="M%.1f %d Q%.1f %d %.1f %d" fill="none" stroke="#36c" '
                         'stroke-dasharray="3,2"/>' % (xe, cy, (xe + xd) / 2, cy - 14, xd, cy))
                o.append('<circle cx="%.1f" cy="%d" r="2.5" fill="#36c"><title>programmed for '
                         '+%.0f us</title></circle>' % (xe, cy, e["b"] / 1000))
            else:
                o.append('<path d="M%.1f %d l6 6 m0 -6 l-6 6" stroke="#36c" stroke-width="1.5">'
                         '<title>cancelled</title></path>' % (xe - 3, cy - 3))
        elif e["ev"] == "clockevent":
            o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="red" stroke-width="2">'
                     '<title>interrupt</title></line>' % (xe, cy - 8, xe, cy + 8))
    for (xe, c, text), lane in zip(labels, lanes):
        y = cy + 22 + lane_h * lane
        o.append('<line class="leader" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
                 % (xe, cy + 8, xe, y - 9, c))
        o.append('<text class="label" x="%.1f" y="%d" fill="%s" font-size="%d">%s</text>'
                 % (xe + 2, y, c, label_size, html.escape(text)))
    ly = label_bottom + 20
    legend = [("#36c", "clock event programmed; dashed to the deadline it set (x: none)"),
              ("red", "its interrupt"), ("green", "a timer it ran"),
              ("#e80", "a fair slice it ended"), ("#e8e8e8", "idle")]
    legend += [(c, name) for name, c in colours.items()]
    lx, yy = left, ly
    for c, text in legend:
        w = 14 + text_width(text, 11) + 24
        if lx + w > left + width:
            lx, yy = left, yy + 16
        o.append('<rect x="%d" y="%d" width="10" height="10" fill="%s" stroke="#999" '
                 'stroke-width="0.5"/><text x="%d" y="%d">%s</text>'
                 % (lx, yy, c, lx + 14, yy + 9, html.escape(text)))
        lx += int(w)
    head = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
            'font-size="11">' % (svg_w, yy + 24),
            '<rect width="100%" height="100%" fill="white"/>']
    return "\n".join(head + o + ["</svg>"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--svg")
    ap.add_argument("--last", action="store_true", help="use the last dump in the log")
    ap.add_argument("--title", default="baton trace")
    ap.add_argument("--cpu-svg", help="draw one CPU's clock events (with --cpu)")
    ap.add_argument("--cpu", type=int, default=1)
    a = ap.parse_args(argv)
    try:
        with open(a.log, encoding="utf-8", errors="replace") as f:
            events, header = parse(f.read(), a.last)
    except (OSError, TraceError) as e:
        sys.exit("trace2json: %s" % e)
    trace = to_chrome(events)
    text = json.dumps(trace, indent=None)
    if a.output == "-":
        print(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)
    if a.svg:
        with open(a.svg, "w") as f:
            f.write(to_svg(trace, a.title))
    if a.cpu_svg:
        try:
            svg = to_svg_cpu(events, a.cpu)
        except TraceError as e:
            sys.exit("trace2json: %s" % e)
        with open(a.cpu_svg, "w") as f:
            f.write(svg)
    print("trace2json: %d events -> %d trace events (%s)" % (len(events), len(trace["traceEvents"]), header),
          file=sys.stderr)


if __name__ == "__main__":
    main()
