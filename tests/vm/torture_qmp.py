#!/usr/bin/env python3
"""tests/vm/torture_qmp.py - vCPU hot-plug from the host, under the kernel's torture.

`make torture-qmp DURATION=3600 SMP=2 MAXCPUS=6 SEED=0 TORTURE_HOTPLUG=both`

Boots baton (q35 by default) with -smp SMP,maxcpus=MAXCPUS and a QMP socket,
starts the CPU-hotplug torture (kernel/tools/torture.h) from the serial
shell in a host mode (`torture start 0 0 MODE`: its workqueue and timer
load and its invariant checks, until stopped; MODE "both" keeps its own
cpu_down/cpu_up loop racing with the host, "host" leaves the hotplug to the
host alone), then for DURATION seconds adds and removes vCPUs at random
through QMP, seeded by SEED (0: a random seed, printed; the kernel's
torture gets the same seed through torture_seed=):

  device_add  driver (the slot's type), id, the slot's socket/core/thread
              ids (query-hotpluggable-cpus)  -> done at ACPI_DEVICE_OST
              {device: id, source 1 (insert), status 0}: the kernel brought
              the CPU online (a non-zero status: it could not)
  device_del  id (or the QOM path of a CPU present at boot) -> done at
              DEVICE_DELETED: the kernel took it down and ejected it (an
              ACPI_DEVICE_OST with source 3 (eject) and a non-zero status
              is a refusal: a failure for any CPU but the boot CPU)

Up to three operations are in flight at once; every one must complete
within --op-timeout seconds (no sleeping: the script waits on QMP events,
each with its deadline). Now and then, with nothing else in flight, it
asks to remove the boot CPU: that must be refused (QEMU 7.2 refuses it
itself, GenericError "Boot CPU is unpluggable"; a QEMU that passed it on
must see the kernel refuse it with ACPI_DEVICE_OST status 0x80; any other
error or status fails) and cpu0 must still be there (QMP
query-cpus-fast, and online in the shell's `cpus`).

At the end it issues no more operations, waits for those in flight, sends
`torture stop` and reads the torture's one verdict line. It prints the
cycles (device_add + device_del pairs), the latency of device_del ->
DEVICE_DELETED and of device_add -> online (ACPI_DEVICE_OST) in ms
(min/median/max), and one last line "torture-qmp: PASS" or
"torture-qmp: FAIL (reason)". It fails on: a torture verdict other than
PASS, a "[cpuN] BUG:" or WARNING line or a panic anywhere in a boot's
serial log (scanned to its end once QEMU has exited: the power-down
too), an event missing at its deadline, a refused removal of a non-boot
CPU, a failed online, an unexpected event (a CPU deleted that nobody
asked to remove, an ACPI_DEVICE_OST insertion with no device_add of
that slot and id outstanding, an eject report with no removal asked),
QEMU exiting, a boot-CPU probe not refused, or refused with another
error than the one expected (BOOT_CPU_REFUSAL, or _OST status 0x80).
The serial log is BUILD/test-logs/torture-qmp.log; QEMU is killed at a
hard deadline (DURATION + --margin seconds).

run_tests.py runs a short one in `make test` (interact(), a Boot of
KERNEL_BOOTS). Python 3 standard library only.
"""
import argparse
import os
import random
import re
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # tests/
from harness import qemu  # noqa: E402
from vm import shell_tests  # noqa: E402

OP_TIMEOUT = 60         # s: an operation's event (TCG on a loaded 2-core host)
MARGIN = 600            # s beyond DURATION: boot, the last operations, torture stop
MAX_INFLIGHT = 3
GAP_MS = 1000           # a random pause of 0..GAP_MS between operations (load
                        # shaping: the torture's load runs with each CPU set)
PROBE_ONE_IN = 25       # operations, on average, between boot-CPU probes
STOP_TIMEOUT = 300      # s for `torture stop` (the torture's end checks and drain)
PROGRESS_EVERY = 60     # s
# The torture's verdict line: as run_tests.TORTURE_VERDICT.
VERDICT = re.compile(r"\]\[cpu\d+\] torture: (PASS|FAIL\b[^\r\n]*)\r?$", re.M)
# What fails any boot (as run_tests.kernel_reports and PANIC_TEXT).
BAD_LINE = re.compile(r"^.*(\[cpu\d+\] (WARNING|BUG): |Kernel panic - not syncing|"
                      r"\[uart: \d+ bytes of output dropped).*$", re.M)
OST_INSERT, OST_EJECT = 1, 3                    # ACPI _OST source events
OST_PENDING = {OST_INSERT: 0x80, OST_EJECT: 0x84}   # "in progress": not the answer yet
# A boot-CPU probe is refused in one of two ways, each exactly: by QEMU 7.2
# itself (hw/i386/pc.c), with this QMP error and no other (a wrong id's
# DeviceNotFound, say, is no refusal); or, by a QEMU that passes it on, by
# the kernel with _OST eject status 0x80, "ejection not supported"
# (drivers/acpi_cpuhp.c: -EPERM, the boot CPU never goes).
BOOT_CPU_REFUSAL = ("GenericError", "Boot CPU is unpluggable")
OST_EJECT_NOT_SUPPORTED = 0x80


class Failure(Exception):
    pass


def slot_order(entry):
    """query-hotpluggable-cpus in APIC id order (QEMU's own slot numbering,
    the "slot" of ACPI_DEVICE_OST): socket, die, cluster, core, thread."""
    p = entry["props"]
    return tuple(p.get(k, 0) for k in ("socket-id", "die-id", "cluster-id", "core-id",
                                         "thread-id"))


def summary(values):
    if not values:
        return "none"
    v = sorted(values)
    return "min %.0f median %.0f max %.0f (%d)" % (v[0], v[len(v) // 2], v[-1], len(v))


class Figures:
    """What a whole run (all its boots) counts."""

    def __init__(self, seed, mode):
        self.seed, self.mode = seed, mode
        self.lat_add, self.lat_del = [], []
        self.adds = self.dels = self.cold_dels = self.cycles = self.probes = self.boots = 0
        self.kernel_lines = []
        self.exit_aborts = 0    # QEMU deaths at exit after a clean power-down (QEMU 7.2 bug)

    def report(self, out):
        for line in self.kernel_lines[-12:]:
            out("  " + line)
        out("torture-qmp: seed %d, mode %s, %d boot(s): %d cycles (device_add + device_del of "
            "one vCPU); %d device_add, %d device_del (%d of -smp vCPUs) completed; %d boot-CPU "
            "probes refused" % (self.seed, self.mode, self.boots, self.cycles, self.adds,
                                self.dels, self.cold_dels, self.probes))
        if self.exit_aborts:
            out("torture-qmp: QEMU died at exit %d time(s), each after the boot's verdict and "
                "power-down: QEMU 7.2's heap corruption after a vCPU unplug "
                "(docs/vcpu-hotplug.md)" % self.exit_aborts)
        out("torture-qmp: device_del -> DEVICE_DELETED ms: %s" % summary(self.lat_del))
        out("torture-qmp: device_add -> online (ACPI_DEVICE_OST) ms: %s" % summary(self.lat_add))


class HostTorture:
    """One boot's host side: m is started; the figures go to fig.

    QEMU 7.2 under TCG corrupts its own heap at the first memory-map
    change after a vCPU unplug (the unplugged vCPU's address-space
    listener still flushes the TLB it freed: docs/vcpu-hotplug.md); a
    device_add makes such a change, and so does the next unplug. It
    crashed here at an add after a removal (in every order tried) and
    after a few removals with no add at all. So, unless readd (a QEMU
    without that bug), a boot adds vCPUs at random and then removes one,
    alone, as its last operation; the run is a series of boots, each a
    torture run of its own."""

    def __init__(self, m, rng, fig, mode="both", op_timeout=OP_TIMEOUT, readd=False):
        self.m, self.rng, self.fig, self.mode = m, rng, fig, mode
        self.op_timeout, self.readd = op_timeout, readd
        self.sh = shell_tests.Shell(m)
        self.pending = {}           # slot index -> operation
        self.problems = []          # found on the way, not fatal at once
        self.scanned = 0            # serial output checked for BUG/WARNING lines
        self.next_scan = 0
        self.serial = 0             # ids made
        self.burst = 1
        self.adds_started = False   # a device_add was made in this boot
        self.no_more_adds = False   # and then a device_del (QEMU 7.2)
        self.gone = set()           # QOM paths of removed vCPUs (and their /lapic)
        self.next_issue = 0
        self.trace = os.environ.get("TORTURE_QMP_TRACE")

    # ---- QMP --------------------------------------------------------------

    def next_event(self, until):
        """The next QMP event, or None at until."""
        q = self.m.qmp
        if q.events:
            return q.events.pop(0)
        left = until - time.time()
        if left <= 0:
            return None
        q.sock.settimeout(left)
        try:
            msg = q._read()
        except socket.timeout:
            return None
        except OSError as e:
            raise Failure("QMP connection: %s" % e)
        except qemu.QemuError as e:
            raise Failure(str(e))
        finally:
            q.sock.settimeout(10)
        if "event" not in msg:
            raise Failure("QMP sent %r with no command outstanding" % msg)
        return msg

    def qmp(self, command, **args):
        try:
            return self.m.qmp.execute(command, **args)
        except (OSError, socket.timeout) as e:
            raise Failure("QMP %s: %s" % (command, e))

    # ---- the slots --------------------------------------------------------

    def setup(self):
        slots = sorted(self.qmp("query-hotpluggable-cpus"), key=slot_order)
        boot = [c for c in self.qmp("query-cpus-fast") if c["cpu-index"] == 0]
        if not boot:
            raise Failure("query-cpus-fast lists no cpu-index 0")
        self.boot_path = boot[0]["qom-path"]
        self.slots = []
        for i, e in enumerate(slots):
            path = e.get("qom-path")
            self.slots.append({"index": i, "props": e["props"], "type": e["type"],
                               "present": path is not None, "handle": path, "path": path,
                               "added": False})
        boots = [s for s in self.slots if s["path"] == self.boot_path]
        if len(boots) != 1:
            raise Failure("cannot tell the boot CPU's slot (%s) among %r" % (
                self.boot_path, [s["path"] for s in self.slots]))
        self.boot = boots[0]["index"]
        if len(self.slots) < 2:
            raise Failure("no slot to hot-plug: boot with maxcpus above -smp")

    def name(self, s):
        return "slot %d (core %s)" % (s["index"], s["props"].get("core-id", "?"))

    # ---- operations -------------------------------------------------------

    def begin(self, s, kind, what):
        now = time.time()
        if self.trace:
            print("trace %.3f %s" % (now, what), file=sys.stderr, flush=True)
        self.pending[s["index"]] = {"kind": kind, "t0": now, "deadline": now + self.op_timeout,
                                    "what": what}

    def add(self, s):
        self.serial += 1
        dev_id = "tq%d-%d" % (s["index"], self.serial)
        args = dict(s["props"], driver=s["type"], id=dev_id)
        self.begin(s, "add", "device_add of %s as %s" % (self.name(s), dev_id))
        try:
            self.m.qmp.execute("device_add", **args)
        except qemu.QemuError as e:
            raise Failure("device_add of %s: %s" % (self.name(s), e))
        s["handle"], s["path"], s["added"] = dev_id, "/machine/peripheral/" + dev_id, True
        self.adds_started = True

    def remove(self, s):
        if not self.readd:
            self.no_more_adds = True    # QEMU 7.2: nothing after an unplug (class doc)
        self.begin(s, "del", "device_del of %s (%s)" % (self.name(s), s["handle"]))
        try:
            self.m.qmp.execute("device_del", id=s["handle"])
        except qemu.QemuError as e:
            raise Failure("device_del of %s (%s) refused by QEMU: %s" % (
                self.name(s), s["handle"], e))

    def probe(self):
        """Ask to remove the boot CPU: it must be refused, and cpu0 stay."""
        s = self.slots[self.boot]
        self.fig.probes += 1
        self.begin(s, "probe", "device_del of the boot CPU (%s)" % self.boot_path)
        try:
            self.m.qmp.execute("device_del", id=self.boot_path)
        except qemu.QemuError as e:
            got = (getattr(e, "error_class", None), getattr(e, "desc", None))
            if got != BOOT_CPU_REFUSAL:
                raise Failure("device_del of the boot CPU (%s): QEMU answered %s, not its "
                              "refusal (%s %r)" % (
                                  self.boot_path, "%s %r" % got if got[0] else repr(str(e)),
                                  BOOT_CPU_REFUSAL[0], BOOT_CPU_REFUSAL[1]))
            del self.pending[self.boot]     # refused by QEMU itself
            self.check_boot_cpu()
        # Else passed on to the guest: its refusal (ACPI_DEVICE_OST) completes it.

    def check_boot_cpu(self):
        if not any(c["cpu-index"] == 0 for c in self.qmp("query-cpus-fast")):
            raise Failure("after a removal request of the boot CPU, QEMU no longer lists it")
        out = self.sh.run("cpus", timeout=self.op_timeout)
        if out is None:
            raise Failure("the shell did not answer 'cpus' after a boot-CPU probe: %s" %
                          self.sh.dead)
        if not re.search(r"cpu0 +apic \d+ +online", out):
            raise Failure("after a boot-CPU probe, 'cpus' does not show cpu0 online: %r" %
                          out[-300:])

    def choices(self):
        """The slots an operation may go to now."""
        free = [s for s in self.slots if s["index"] != self.boot and
                s["index"] not in self.pending]
        if self.readd:
            return free
        if self.no_more_adds:
            return []           # the boot's one removal is made: it ends
        ok = []
        for s in free:
            if not s["present"]:
                ok.append(s)
            elif not self.pending and (self.rng.randrange(8) == 0 or
                                       all(x["present"] for x in free)):
                ok.append(s)    # the one removal, alone: the boot's last operation
        return ok

    def issue(self):
        """Start operations while fewer than the burst are in flight;
        False when there is nothing left to do in this boot."""
        if not self.pending:
            if self.rng.randrange(PROBE_ONE_IN) == 0:
                self.probe()
                return True
            self.burst = self.rng.choice((1, 1, 1, 2, 3))
        while len(self.pending) < min(self.burst, MAX_INFLIGHT):
            ok = self.choices()
            if not ok:
                return bool(self.pending)
            s = self.rng.choice(ok)
            self.remove(s) if s["present"] else self.add(s)
        return True

    # ---- events -----------------------------------------------------------

    def done(self, s, op):
        del self.pending[s["index"]]
        return (time.time() - op["t0"]) * 1000

    def on_deleted(self, data):
        path, dev = data.get("path"), data.get("device")
        if path and (path == self.boot_path or path.startswith(self.boot_path + "/")):
            raise Failure("the boot CPU was removed (DEVICE_DELETED %r)" % data)
        if path in self.gone:
            return              # the vCPU's other object (its APIC, or itself)
        for s in self.slots:
            if not s["path"]:
                continue
            if path in (s["path"], s["path"] + "/lapic") or (dev and dev == s["handle"]):
                op = self.pending.get(s["index"])
                if not op or op["kind"] != "del":
                    raise Failure("DEVICE_DELETED %r: %s was not being removed%s" % (
                        data, self.name(s), " (%s in flight)" % op["what"] if op else ""))
                self.fig.lat_del.append(self.done(s, op))
                self.fig.dels += 1
                if s["added"]:
                    self.fig.cycles += 1
                else:
                    self.fig.cold_dels += 1
                self.gone |= {s["path"], s["path"] + "/lapic"}
                s.update(present=False, handle=None, path=None, added=False, emptied=True)
                return
        raise Failure("DEVICE_DELETED %r: no such CPU asked to go" % data)

    def on_ost(self, info):
        source, status = info.get("source"), info.get("status")
        try:
            s = self.slots[int(info.get("slot"))]
        except (TypeError, ValueError, IndexError):
            raise Failure("ACPI_DEVICE_OST for an unknown slot: %r" % info)
        op = self.pending.get(s["index"])
        in_flight = " (%s in flight)" % op["what"] if op else ""
        if source == OST_INSERT:
            # Only for the device_add outstanding on this slot, with its id:
            # a CPU the harness did not add is a problem, whatever its status.
            if not (op and op["kind"] == "add" and info.get("device") == s["handle"]):
                raise Failure("ACPI_DEVICE_OST %r: an insertion nobody asked for (no "
                              "device_add of %s as %r outstanding%s)" % (
                                  info, self.name(s), info.get("device"), in_flight))
            if status == OST_PENDING[OST_INSERT]:
                return
            if status != 0:
                raise Failure("%s: the kernel could not bring the CPU online "
                              "(ACPI_DEVICE_OST status %#x)" % (op["what"], status))
            self.fig.lat_add.append(self.done(s, op))
            self.fig.adds += 1
            s["present"] = True
        elif source == OST_EJECT:
            if not op or op["kind"] not in ("del", "probe"):
                raise Failure("ACPI_DEVICE_OST %r: an eject report for %s, which nobody asked "
                              "to remove%s" % (info, self.name(s), in_flight))
            if status == OST_PENDING[OST_EJECT]:
                return
            if op["kind"] == "probe":
                if status != OST_EJECT_NOT_SUPPORTED:
                    raise Failure("%s: the kernel answered ACPI_DEVICE_OST status %#x, not "
                                  "its refusal %#x (ejection not supported)" % (
                                      op["what"], status, OST_EJECT_NOT_SUPPORTED))
                self.done(s, op)
                self.check_boot_cpu()
            elif status != 0:
                raise Failure("the kernel refused %s (ACPI_DEVICE_OST status %#x)" % (
                    op["what"], status))
            # Else a success report: DEVICE_DELETED completes the removal.
        else:
            raise Failure("ACPI_DEVICE_OST %r: source %r, neither an insertion (%d) nor an "
                          "eject request (%d)" % (info, source, OST_INSERT, OST_EJECT))

    def on_event(self, ev):
        name, data = ev.get("event"), ev.get("data", {})
        if self.trace:
            print("trace %.3f %s %r" % (time.time(), name, data), file=sys.stderr, flush=True)
        if name == "DEVICE_DELETED":
            self.on_deleted(data)
        elif name == "ACPI_DEVICE_OST":
            self.on_ost(data.get("info", {}))
        elif name in ("SHUTDOWN", "RESET", "GUEST_PANICKED"):
            raise Failure("QEMU event %s during the run: %r" % (name, data))

    # ---- watching ---------------------------------------------------------

    def scan_log(self, to_end=False):
        """New complete lines of the serial log (to_end: every line, the
        last too, once QEMU has exited): a panic fails at once, a BUG or
        WARNING line at the end (the torture's verdict comes first)."""
        out = self.m.output
        # A line may be cut while QEMU runs: again from its start.
        end = len(out) if to_end else out.rfind("\n") + 1
        for x in BAD_LINE.finditer(out, self.scanned, end):
            line = x.group(0).strip()
            if "Kernel panic" in line:
                raise Failure("panic: %s" % line)
            if len(self.problems) < 5:
                self.problems.append("the kernel printed: %s" % line)
        self.scanned = max(self.scanned, end)

    def check_alive(self):
        status = self.m.exited()
        if status is not None:
            self.scan_log(to_end=True)
            raise Failure("QEMU exited (status %s)" % status)
        now = time.time()
        if now >= self.next_scan:
            self.next_scan = now + 1
            self.scan_log()
        for op in self.pending.values():
            if now > op["deadline"]:
                want = {"add": "ACPI_DEVICE_OST (insert)", "del": "DEVICE_DELETED",
                        "probe": "a refusal (ACPI_DEVICE_OST)"}[op["kind"]]
                raise Failure("%s: no %s within %d s" % (op["what"], want, self.op_timeout))

    def step(self, until):
        """Wait for one event (not past until or an operation's deadline)."""
        self.check_alive()
        deadline = min([until, time.time() + 1] + [op["deadline"] for op in self.pending.values()])
        ev = self.next_event(deadline)
        if ev:
            self.on_event(ev)

    # ---- one boot ---------------------------------------------------------

    def start_torture(self):
        if not self.sh.ready(timeout=300):
            raise Failure("no shell prompt: %s" % self.sh.dead)
        self.mark = self.m.mark()
        out = self.sh.run("torture start 0 0 %s" % self.mode)
        if out is None or "torture: running" not in out:
            raise Failure("torture start: %r" % (out if out is not None else self.sh.dead))

    def hotplug(self, end):
        # Past the end too, until one add or remove is under way: a boot
        # started just before the end must still move a CPU, or the
        # torture's verdict ("no CPU went offline or online") would
        # depend on how late it started.
        before = self.fig.adds + self.fig.dels
        while time.time() < end or (not self.pending and self.fig.adds + self.fig.dels == before):
            if time.time() >= self.next_issue:
                if not self.issue():
                    break
                self.next_issue = time.time() + self.rng.randrange(GAP_MS + 1) / 1000
            self.step(min(end, self.next_issue) if len(self.pending) >= self.burst else
                      min(end, self.next_issue, time.time() + 0.05))
        # No more operations: wait for those in flight (each has its deadline).
        while self.pending:
            self.step(time.time() + 1)

    def stop_torture(self):
        out = self.sh.run("torture stop", timeout=STOP_TIMEOUT)
        if out is None:
            raise Failure("torture stop: %s" % self.sh.dead)
        log = self.m.output[self.mark:]
        verdicts = VERDICT.findall(log)
        self.fig.kernel_lines = [x.strip() for x in re.findall(r"^.*\] torture: .*$", log, re.M)
                                 if re.search(r"violation|PASS|FAIL|after \d+ s|latency|"
                                              r"others took|works queued", x)]
        if len(verdicts) != 1:
            raise Failure("the torture printed %d verdict lines, expected one" % len(verdicts))
        if verdicts[0] != "PASS":
            raise Failure("torture: %s" % verdicts[0].strip())

    def run(self, end, poweroff=True):
        """Boot's host side until end (time.time()) or nothing is left to do;
        raises Failure. Powers the machine off (if poweroff)."""
        self.fig.boots += 1
        self.setup()
        self.start_torture()
        self.hotplug(end)
        self.stop_torture()
        self.check_alive()
        self.scan_log()                 # every line up to the verdict (check_alive: once a second)
        if self.problems:
            raise Failure(self.problems[0])
        if poweroff:
            self.sh.poweroff()

    def finish(self, timeout=60):
        """After run(poweroff=True): QEMU's exit status once it has exited
        (None if it did not), its log scanned to the end first, so that a
        panic, BUG or WARNING printed after the verdict, the power-down
        included, fails the boot."""
        status = self.m.wait(timeout)
        self.scan_log(to_end=True)
        if self.problems:
            raise Failure("%s (after the torture's verdict)" % self.problems[0])
        return status


def run_boots(first, make_machine, seed, duration, mode, out, op_timeout=OP_TIMEOUT,
              readd=False, keep_first=False):
    """Boots one after another (the first given, started; make_machine(n)
    starts the n-th) until duration seconds of host operations have
    passed. (ok, reason, figures); every machine is left stopped, but the
    first with keep_first: it stays at its shell until the end, then the
    caller powers it off (run_tests.py watches it)."""
    fig = Figures(seed, mode)
    rng = random.Random(seed)
    end = time.time() + duration
    m, ok, reason = first, True, None
    try:
        while True:
            host = HostTorture(m, rng, fig, mode, op_timeout, readd)
            kept = keep_first and m is first    # run_tests.py judges its whole log
            host.run(end, poweroff=not kept)
            status = 0 if kept else host.finish()
            if status != 0 and qemu.unplug_abort_at_exit(m.output, status):
                fig.exit_aborts += 1    # after the guest's verdict and power-down
            elif status != 0:
                raise Failure("QEMU %s after poweroff (log %s)" % (
                    "did not exit" if status is None else "exited with status %s" % status,
                    m.log_path))
            if time.time() >= end:
                break
            if fig.boots % 10 == 0:
                out("torture-qmp: %d boots, %d cycles so far" % (fig.boots, fig.cycles))
            m = make_machine(fig.boots + 1)
        if not fig.adds or not fig.dels:
            raise Failure("%d device_add and %d device_del completed: nothing was cycled" % (
                fig.adds, fig.dels))
    except Failure as e:
        ok, reason = False, "%s (log: %s)" % (e, m.log_path)
    except (qemu.QemuError, OSError) as e:
        time.sleep(0.5)         # only to let a dying QEMU's last words reach the log
        status = m.exited()
        last = m.output.rstrip().rsplit("\n", 1)[-1].strip()
        ok, reason = False, "QMP: %s%s (log: %s)" % (e, "; QEMU exited (status %s), its last "
                                                     "line: %r" % (status, last[-120:])
                                                     if status is not None else "", m.log_path)
    finally:
        if m is not first or not keep_first:
            if m.proc is not None and m.exited() is None:
                m.wait(0)
    fig.report(out)
    return ok, reason, fig


def interact(m, boot, duration, seed, mode="both"):
    """run_tests.py's boot: a short run. The first boot is the harness's
    (its log judged as any boot's); later ones are started here, named
    BOOT-2, BOOT-3... in the same directory, with the same command line
    and the same deadline. Every boot powers off."""
    def make(n):
        m2 = qemu.Machine(m.iso, name="%s-%d" % (boot.name, n), smp=m.smp, mem=m.mem,
                          machine=m.machine, cmdline=m.cmdline, workdir=m.workdir, qmp=True)
        m2.deadline = m.deadline
        return m2.start()

    lines = []
    ok, reason, fig = run_boots(m, make, seed, duration, mode, out=lines.append,
                                keep_first=True)
    for line in lines:
        print("      " + line, flush=True)
    shell_tests.Shell(m).poweroff()
    return [("torture_qmp.the host adds and removes vCPUs under the torture (%s)" % mode, ok,
             reason or "PASS")]


def main():
    ap = argparse.ArgumentParser(description="vCPU hot-plug from the host, under the torture.")
    ap.add_argument("--iso", default="build/baton.iso")
    ap.add_argument("--build", default="build")
    ap.add_argument("--duration", type=int, default=3600, help="seconds of host operations")
    ap.add_argument("--smp", type=int, default=2, help="vCPUs at boot")
    ap.add_argument("--maxcpus", type=int, default=6, help="vCPU slots")
    ap.add_argument("--seed", type=int, default=0, help="0: a random seed (printed)")
    ap.add_argument("--mode", choices=("both", "host"), default="both",
                    help="the torture's own cpu_down/cpu_up loop too (both), or not (host)")
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--machine", default="q35")
    ap.add_argument("--op-timeout", type=int, default=OP_TIMEOUT)
    ap.add_argument("--inject", choices=("none", "lost"), default="none",
                    help="the torture's self-test fault: the run must then FAIL")
    ap.add_argument("--readd", action="store_true",
                    help="add and remove vCPUs in any order, many per boot (for a QEMU "
                         "without the 7.2 TCG unplug bug: see HostTorture)")
    a = ap.parse_args()
    if a.duration < 1 or a.smp < 1 or a.maxcpus <= a.smp or a.op_timeout < 1:
        sys.exit("torture_qmp.py: need DURATION >= 1, SMP >= 1 and MAXCPUS > SMP "
                 "(got %d, %d, %d)" % (a.duration, a.smp, a.maxcpus))
    if not os.path.exists(a.iso):
        sys.exit("torture_qmp.py: %s does not exist (make iso)" % a.iso)
    seed = a.seed or random.SystemRandom().randrange(1, 1 << 31)
    logdir = os.path.join(a.build, "test-logs")
    os.makedirs(logdir, exist_ok=True)
    cmdline = "panic=exit torture_seed=%d" % seed
    if a.inject != "none":
        cmdline += " torture_inject=" + a.inject
    ap_readd = a.readd

    def make(n):
        m = qemu.Machine(a.iso, name="torture-qmp", smp="%d,maxcpus=%d" % (a.smp, a.maxcpus),
                         mem=a.mem, machine=a.machine, cmdline=cmdline, workdir=logdir, qmp=True)
        m.deadline = deadline
        return m.start()

    timeout = a.duration + MARGIN
    deadline = time.time() + timeout
    print("torture-qmp: %d s at -smp %d,maxcpus=%d on %s, mode %s, seed %d (repeat: SEED=%d); "
          "serial log %s/torture-qmp.log, the last boot's (hard timeout %d s)" % (
              a.duration, a.smp, a.maxcpus, a.machine, a.mode, seed, seed, logdir, timeout),
          flush=True)
    try:
        first = make(1)
    except qemu.QemuError as e:
        print("torture-qmp: FAIL (%s)" % e)
        sys.exit(1)
    ok, reason, _ = run_boots(first, make, seed, a.duration, a.mode,
                              out=lambda x: print(x, flush=True), op_timeout=a.op_timeout,
                              readd=ap_readd)
    print("torture-qmp: PASS" if ok else "torture-qmp: FAIL (%s)" % reason, flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
