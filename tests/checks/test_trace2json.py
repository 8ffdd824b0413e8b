#!/usr/bin/env python3
"""tests/checks/test_trace2json.py - the pictures of scripts/trace2json.py read cleanly.

On made-up trace dumps with events close together (the hotplug story: a
CPU's phases and its pools' trustees within a millisecond; timers and slice
ends in a burst) and on the pictures in docs/ drawn from real runs
(docs/trace-scenarios.svg, docs/clock-events.svg): no two text boxes
overlap, every label lies inside the picture, and no leader line crosses a
label. A text's box is estimated as trace2json.py places them: its
character count times 0.6 em wide (a monospace advance, wider than the
sans-serif labels' average), from 0.8 em above its baseline to 0.2 em
below. Each case prints "ok N - name" or "not ok N - name" with "    # ..."
lines saying why; run by `make test` as a host check (run_tests.py
run_check).
"""
import os
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import trace2json  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests"))
from harness import tap_main  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"


def text_boxes(svg):
    """[(x0, y0, x1, y1, text, class)] of every <text>, and the picture's size."""
    root = ET.fromstring(svg)
    size0 = float(root.get("font-size", "16"))
    boxes = []
    for t in root.iter(NS + "text"):
        text = "".join(t.itertext())
        size = float(t.get("font-size", size0))
        x, y, w = float(t.get("x")), float(t.get("y")), len(text) * 0.6 * size
        x0 = {"middle": x - w / 2, "end": x - w}.get(t.get("text-anchor"), x)
        boxes.append((x0, y - 0.8 * size, x0 + w, y + 0.2 * size, text, t.get("class")))
    return boxes, float(root.get("width")), float(root.get("height"))


def leaders(svg):
    root = ET.fromstring(svg)
    return [(float(l.get("x1")), min(float(l.get("y1")), float(l.get("y2"))),
             max(float(l.get("y1")), float(l.get("y2"))))
            for l in root.iter(NS + "line") if l.get("class") == "leader"]


def problems(svg):
    """What makes the picture hard to read: overlapping texts, a label out
    of the picture, a leader line through a label."""
    boxes, width, height = text_boxes(svg)
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5:
                out.append("%r overlaps %r" % (a[4], b[4]))
        if a[0] < 0 or a[2] > width or a[1] < 0 or a[3] > height:
            out.append("%r (%.0f..%.0f, %.0f..%.0f) is outside the %dx%d picture"
                       % (a[4], a[0], a[2], a[1], a[3], width, height))
    labels = [b for b in boxes if b[5] == "label"]
    for x, y0, y1 in leaders(svg):
        for b in labels:
            if b[0] + 0.5 < x < b[2] - 0.5 and min(y1, b[3]) - max(y0, b[1]) > 0.5:
                out.append("the leader at x=%.1f crosses %r" % (x, b[4]))
    return out


def dump(lines):
    return "trace: begin %d events (0 lost) on 2 CPUs\n%s\ntrace: end\n" % (len(lines), "\n".join(lines))


def hotplug_dump():
    """cpu1 goes down with work pending: the phases, two pools' trustees and
    a mayday within 300 us of a 20 ms trace; cpu1 comes back at the end."""
    us = 1000
    ev = ["T %d 0 switch 5 kworker/0:0 0 0 -" % 0,
          "T %d 1 switch 9 kworker/1:1 0 0 -" % 0,
          "T %d 1 start 9 kworker/1:1 1000 0 pending_fn+0x0" % (100 * us),
          "T %d 1 end 9 kworker/1:1 1000 0 pending_fn+0x0" % (900 * us)]
    t = 5000 * us
    for i, (kind, a, b) in enumerate([("cpu", 1, 0), ("cpu", 1, 1), ("trustee", 2, 1),
                                      ("trustee", 3, 1), ("mayday", 3, 0), ("cpu", 1, 2),
                                      ("trustee", 3, 2), ("trustee", 2, 2)]):
        ev.append("T %d 0 %s 7 cpuhp %x %x -" % (t + 40 * us * i, kind, a, b))
    ev.append("T %d 0 start 7 kworker/u4:0 2000 0 trustee_fn+0x0" % (t + 50 * us))
    ev.append("T %d 0 end 7 kworker/u4:0 2000 0 trustee_fn+0x0" % (t + 9000 * us))
    for i, (kind, a, b) in enumerate([("cpu", 1, 3), ("cpu", 1, 4), ("trustee", 2, 0),
                                      ("trustee", 3, 0), ("cpu", 1, 5)]):
        ev.append("T %d 0 %s 7 cpuhp %x %x -" % (20000 * us + 20 * us * i, kind, a, b))
    return dump(ev)


def clock_dump():
    """cpu1: slices ending and a burst of timers 100 us apart."""
    us = 1000
    ev = ["T 0 1 switch 11 hog/a 0 0 -", "T %d 1 program 11 hog/a %x 0 -" % (10, 10000 * us)]
    for i in range(6):
        t = 10000 * us + 100 * us * i
        ev.append("T %d 1 clockevent 11 hog/a %x 0 -" % (t, t))
        ev.append("T %d 1 timer 11 hog/a %x 0 sleeper_wake+0x0" % (t + 1, 0x1000 + i))
        ev.append("T %d 1 slice 11 hog/a %x 0 -" % (t + 2, 10000 * us))
    ev.append("T %d 1 switch 0 idle/1 0 0 -" % (20000 * us))
    ev.append("T %d 1 clockevent 0 idle/1 %x 0 -" % (40000 * us, 40000 * us))
    ev.append("T %d 1 timer 0 idle/1 3000 0 clock_timer_fn+0x0" % (40000 * us + 1))
    return dump(ev)


def steps_dump():
    """cpu1: an offline failed on request in its online step and undone (the
    active bit set again), then an offline whose dying step runs on cpu1."""
    us, ev = 1000, []

    def hp(t, cpu, kind, a, b, sym="-"):
        ev.append("T %d %d %s 7 sh %x %x %s" % (t * us, cpu, kind, a, b, sym))

    down, fail16 = 1 << 32, (1 << 32) | (16 << 40)
    hp(100, 0, "cpu", 1, 0)
    hp(110, 0, "cpuhp_enter", 1 | down, 0x10, "active_teardown+0x0")
    hp(120, 0, "cpuhp_exit", 1 | down, 0x10, "active_teardown+0x0")
    hp(130, 0, "cpuhp_enter", 1 | down, 0x20, "workqueue_cpu_offline+0x0")
    hp(140, 0, "cpuhp_exit", 1 | fail16, 0x20, "workqueue_cpu_offline+0x0")
    hp(150, 0, "cpuhp_enter", 1, 0x10, "active_startup+0x0")
    hp(160, 0, "cpuhp_exit", 1, 0x10, "active_startup+0x0")
    hp(170, 0, "cpu", 1, 6)
    hp(200, 0, "cpu", 1, 0)
    hp(210, 0, "cpuhp_enter", 1 | down, 0x30, "take_cpu_down+0x0")
    hp(220, 0, "cpuhp_exit", 1 | down, 0x30, "take_cpu_down+0x0")
    hp(230, 1, "cpuhp_enter", 1 | down, 0x40, "workqueue_cpu_dying+0x0")
    hp(240, 1, "cpuhp_exit", 1 | down, 0x40, "workqueue_cpu_dying+0x0")
    hp(300, 0, "cpu", 1, 2)
    return dump(ev)


def test_hotplug_steps_nest():
    events, _ = trace2json.parse(steps_dump())
    trace = trace2json.to_chrome(events)
    got = [(e["name"], e["args"]["depth"], e["args"]["result"]) for e in trace["traceEvents"]
           if e["ph"] == "X" and e["pid"] == 5]
    want = [("active_teardown down", 1, 0), ("workqueue_cpu_offline down", 1, -16),
            ("active_startup up", 1, 0), ("cpu_down cpu1", 0, "failed, undone"),
            ("take_cpu_down down", 1, 0), ("workqueue_cpu_dying down", 1, 0),
            ("cpu_down cpu1", 0, "done")]
    assert got == want, got
    dying = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["name"] == "workqueue_cpu_dying down"]
    assert dying[0]["args"]["ran_on"] == "cpu1", dying
    no_problems(trace2json.to_svg(trace, "test"))


def timeline(text):
    events, _ = trace2json.parse(text)
    return trace2json.to_svg(trace2json.to_chrome(events), "test")


def no_problems(svg):
    found = problems(svg)
    assert not found, "; ".join(found[:6]) + (" (and %d more)" % (len(found) - 6) if len(found) > 6
                                               else "")


def test_the_check_sees_an_overlap():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50" font-size="10">'
           '<text x="10" y="20">cpu1 dying</text><text x="40" y="24">cpu1 dead</text></svg>')
    assert problems(svg) == ["'cpu1 dying' overlaps 'cpu1 dead'"], problems(svg)


def test_the_check_sees_a_leader_through_a_label():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50" font-size="10">'
           '<line class="leader" x1="30" y1="0" x2="30" y2="40"/>'
           '<text class="label" x="10" y="20">pool 2 trustee done</text></svg>')
    assert problems(svg) == ["the leader at x=30.0 crosses 'pool 2 trustee done'"], problems(svg)


def test_hotplug_labels_apart():
    svg = timeline(hotplug_dump())
    no_problems(svg)
    assert svg.count('class="label"') == 13, svg.count('class="label"')


def test_clock_event_labels_apart():
    events, _ = trace2json.parse(clock_dump())
    svg = trace2json.to_svg_cpu(events, 1)
    no_problems(svg)
    assert svg.count('class="label"') == 13, svg.count('class="label"')


def test_place_labels_lanes():
    # Close labels go to separate lanes, the rightmost nearest; a far one
    # shares the first lane.
    lanes = trace2json.place_labels([(100, "cpu1 dying"), (103, "cpu1 dead"), (500, "x")], 9)
    assert lanes == [1, 0, 0], lanes


def test_docs_trace_scenarios():
    with open(os.path.join(ROOT, "docs", "trace-scenarios.svg")) as f:
        no_problems(f.read())


def test_docs_clock_events():
    with open(os.path.join(ROOT, "docs", "clock-events.svg")) as f:
        no_problems(f.read())


def main():
    tap_main.run_tests(globals())


if __name__ == "__main__":
    main()
