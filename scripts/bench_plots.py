#!/usr/bin/python3
"""scripts/bench_plots.py - draw the comparison figures of `make bench`.

Reads BUILD/bench.json (written by tests/harness/bench.py) and writes three SVG
plots into docs/ (the same figures give the same bytes):

  bench-offline.svg   cpu_down time and time until the last item is done,
                      against pending items: trustee and drain-first (log
                      axes: from 0.2 ms to a second)
  bench-sleepers.svg  first queued to last done against N sleeping items:
                      cmwq, dedicated, thread per item
  bench-threads.svg   threads serving the workqueues against their number,
                      idle and loaded: the three models

Needs matplotlib (Debian's python3-matplotlib; `make bench` installs it);
`make test` never runs this.

  bench_plots.py [--json build/bench.json] [--out docs]
"""
import argparse
import json
import math
import os

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "baton"  # stable ids: same figures, same file
MODELS = ["cmwq", "dedicated", "thread-per-item"]


def rows(cmp, scenario, row):
    return [f for f in cmp.get(scenario, []) if f["row"] == row]


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    print("bench_plots: wrote %s" % path)


def plot_offline(cmp, out):
    # The times span decades (the trustee's cpu_down() a fraction of a
    # millisecond, draining 1000 items a second): log axes for both.
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    for name, style in (("trustee", "o-"), ("drain-first", "s--")):
        fs = sorted(rows(cmp, "offline", name), key=lambda f: f["pending"])
        x = [f["pending"] for f in fs]
        ax1.plot(x, [f["down_ns"] / 1e6 for f in fs], style, label=name + ": returned")
        ax1.plot(x, [f["dead_ns"] / 1e6 for f in fs], style[0] + ":",
                 label=name + ": CPU died", alpha=0.6)
        done = [f for f in fs if f["pending"]]  # no pending item, no last one
        ax2.plot([f["pending"] for f in done], [f["last_item_ns"] / 1e6 for f in done], style,
                 label=name)
    ax1.set_title("cpu_down() takes")
    ax2.set_title("until the last pending item is done")
    ax1.set_xscale("symlog", linthresh=10)
    ax2.set_xscale("log")
    for ax in (ax1, ax2):
        ax.set_yscale("log")
        lo = min((y for line in ax.get_lines() for y in line.get_ydata() if y > 0), default=1)
        ax.set_ylim(bottom=10 ** math.floor(math.log10(lo)))  # a labelled decade under all
        ax.set_xlabel("pending CPU-bound 1 ms items")
        ax.set_ylabel("ms (guest time)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    save(fig, os.path.join(out, "bench-offline.svg"))


def plot_sleepers(cmp, out):
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for mdl, style in zip(MODELS, ("o-", "s--", "^:")):
        fs = sorted(rows(cmp, "sleepers", mdl), key=lambda f: f["n"])
        ax.plot([f["n"] for f in fs], [f["ns"] / 1e6 for f in fs], style, label=mdl)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("items sleeping 10 ms, queued to one CPU")
    ax.set_ylabel("first queued to last done (ms)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, os.path.join(out, "bench-sleepers.svg"))


def plot_threads(cmp, out):
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for mdl, color in zip(MODELS, ("C0", "C1", "C2")):
        fs = sorted(rows(cmp, "threads", mdl), key=lambda f: f["wqs"])
        x = [f["wqs"] for f in fs]
        ax.plot(x, [f["idle"] for f in fs], "o-", color=color, label=mdl + ", idle")
        ax.plot(x, [f["busy"] for f in fs], "s--", color=color, label=mdl + ", loaded")
    cpus = next((f["cpus"] for f in cmp.get("threads", [])), "?")
    ax.set_xlabel("workqueues (%s CPUs)" % cpus)
    ax.set_ylabel("threads serving them")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    save(fig, os.path.join(out, "bench-threads.svg"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="build/bench.json")
    ap.add_argument("--out", default="docs")
    a = ap.parse_args()
    with open(a.json) as f:
        cmp = json.load(f).get("compare", {})
    plot_offline(cmp, a.out)
    plot_sleepers(cmp, a.out)
    plot_threads(cmp, a.out)


if __name__ == "__main__":
    main()
