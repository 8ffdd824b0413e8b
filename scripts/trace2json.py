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

The SVG is drawn by hand (no plotting package needed): one row per CPU and
per worker, work items as bars labelled with their function, blocks as
gaps, hotplug phases as vertical lines.

Python 3 standard library only.
"""
import argparse
import html
import json
import re
import sys

LINE = re.compile(r"^T (\d+) (\d+) (\w+) (\d+) (\S+) ([0-9a-f]+) ([0-9a-f]+) (\S+)")
CPU_PHASES = ["down-begin", "dying", "dead", "up-begin", "starting", "online"]
TRUSTEE = ["none", "in-charge", "done"]


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
    for c in cpus:
        out.append({"ph": "M", "pid": 1, "tid": c, "name": "thread_name", "args": {"name": "cpu%d" % c}})
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
    # Worker tracks.
    workers = set()
    open_items = {}
    for e in events:
        ev = e["ev"]
        if ev == "start":
            open_items[(e["tid"], e["a"])] = e
            workers.add(e["tid"])
        elif ev == "end":
            s = open_items.pop((e["tid"], e["a"]), None)
            start = s["ns"] if s else events[0]["ns"]
            out.append({"ph": "X", "pid": 2, "tid": e["tid"], "name": func_name(e["sym"]),
                        "ts": us(start), "dur": max(us(e["ns"]) - us(start), 0.001),
                        "args": {"work": hex(e["a"]), "cpu_at_end": e["cpu"]}})
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
        elif ev == "mayday":
            out.append({"ph": "i", "s": "p", "pid": 3, "tid": 2, "name": "mayday pool %d" % e["a"],
                        "ts": us(e["ns"])})
    for tid in sorted(workers):
        out.append({"ph": "M", "pid": 2, "tid": tid, "name": "thread_name",
                    "args": {"name": "%s (%d)" % (names.get(tid, "?"), tid)}})
    out.append({"ph": "M", "pid": 3, "tid": 0, "name": "thread_name", "args": {"name": "CPU phases"}})
    out.append({"ph": "M", "pid": 3, "tid": 1, "name": "thread_name", "args": {"name": "trustees"}})
    out.append({"ph": "M", "pid": 3, "tid": 2, "name": "thread_name", "args": {"name": "maydays"}})
    return {"traceEvents": out, "displayTimeUnit": "ns"}


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
        if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] in (1, 2):
            labels[(e["pid"], e["tid"])] = e["args"]["name"]
    for key in sorted(labels):
        rows.append(key)
    slices = [e for e in evs if e["ph"] == "X"]
    marks = [e for e in evs if e["ph"] == "i" and e["pid"] == 3]
    blocks = [e for e in evs if e["ph"] == "i" and e["pid"] == 2 and e["name"] == "sleep"]
    t_end = max([s["ts"] + s["dur"] for s in slices] + [m["ts"] for m in marks] + [1.0])
    left, width, row_h, top = 170, 1000, 22, 40
    height = top + row_h * len(rows) + 60
    scale = width / t_end
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" '
         'font-size="11">' % (left + width + 20, height),
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
        y = top + i * row_h + 3
        o.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %.0f us</title></rect>'
                 % (x, y, w, row_h - 6, color(s["name"]), html.escape(s["name"]), s["dur"]))
        if w > 60:
            o.append('<text x="%.1f" y="%d">%s</text>' % (x + 2, y + 12, html.escape(s["name"][:int(w / 7)])))
    for b in blocks:
        i = index.get((2, b["tid"]))
        if i is not None:
            x, y = left + b["ts"] * scale, top + i * row_h
            o.append('<path d="M%.1f %d l-4 -6 h8 z" fill="black"><title>blocks</title></path>' % (x, y + 8))
    for j, m in enumerate(marks):
        x = left + m["ts"] * scale
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="red" stroke-dasharray="3,3"/>'
                 % (x, top, x, top + row_h * len(rows)))
        o.append('<text x="%.1f" y="%d" fill="red" font-size="9">%s</text>'
                 % (x + 2, top + row_h * len(rows) + 12 + 10 * (j % 4), html.escape(m["name"])))
    o.append("</svg>")
    return "\n".join(o)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--svg")
    ap.add_argument("--last", action="store_true", help="use the last dump in the log")
    ap.add_argument("--title", default="baton trace")
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
    print("trace2json: %d events -> %d trace events (%s)" % (len(events), len(trace["traceEvents"]), header),
          file=sys.stderr)


if __name__ == "__main__":
    main()
