"""tests/vm/vcpu_hotplug_tests.py - the hypervisor's vCPU hot-plug, driven as a host would.

Boots of tests/harness/run_tests.py (interact=...): QMP device_add / device_del
while the serial shell queues work and looks (drivers/acpi_cpuhp.h).
Every wait is for a named event or line, with a deadline (the boot's).

What QEMU 7.2 under TCG allows, and so what these boots do (the facts are
in docs/vcpu-hotplug.md):
  - device_add of a vCPU: the kernel brings it online and writes _OST, so
    QEMU sends ACPI_DEVICE_OST {device, source 1, status 0};
  - device_del: the kernel takes the CPU down and ejects it; QEMU then
    sends DEVICE_DELETED for the vCPU's APIC child (PATH/lapic) - for the
    CPU itself it never does under TCG (the object is never freed);
  - after an unplug, QEMU 7.2 corrupts its own heap at the next change of
    its memory map (a device_add, another unplug): so each boot adds,
    then removes one vCPU, last; a removal the kernel refuses ejects
    nothing and may come before.
"""
import re
import time

from harness import qemu
from vm.shell_tests import Shell

EVENT_TIMEOUT = 60      # s; the host's part of an add or remove takes well under 1 s


class Host:
    """The hypervisor's side: QMP commands and the events that answer them."""

    def __init__(self, m):
        self.m, self.q = m, m.qmp

    def slots(self):
        return {s["props"]["core-id"]: s.get("qom-path")
                for s in self.q.execute("query-hotpluggable-cpus")}

    def _event(self, match, what):
        deadline = min(time.time() + EVENT_TIMEOUT, self.m.deadline or time.time() + EVENT_TIMEOUT)
        e = self.q.wait_event(match, deadline)
        if e is None:
            raise qemu.QemuError("no %s within %d s" % (what, EVENT_TIMEOUT))
        return e

    def add(self, core):
        """device_add into slot core (QEMU's -smp N,maxcpus=M: one socket of M
        cores, APIC id = core id); returns the id."""
        dev = "vcpu%d" % core
        self.q.execute("device_add", driver="qemu64-x86_64-cpu", id=dev,
                       **{"socket-id": 0, "core-id": core, "thread-id": 0})
        return dev

    def added(self, dev):
        """The kernel's _OST for the insert: its status (0: online)."""
        e = self._event(lambda e: e["event"] == "ACPI_DEVICE_OST" and
                        e["data"]["info"].get("device") == dev and
                        e["data"]["info"].get("source") == 1, "ACPI_DEVICE_OST for %s" % dev)
        return e["data"]["info"]["status"]

    def remove(self, core):
        """device_del of the vCPU in slot core; returns its QOM path."""
        path = self.slots().get(core)
        if not path:
            raise qemu.QemuError("slot %d has no vCPU to remove" % core)
        self.q.execute("device_del", id=path)
        return path

    def removed(self, path):
        """The vCPU is gone: DEVICE_DELETED for it or (TCG) its APIC child."""
        dev = path.rsplit("/", 1)[-1]
        self._event(lambda e: e["event"] == "DEVICE_DELETED" and (
            e["data"].get("path") in (path, path + "/lapic") or e["data"].get("device") == dev),
            "DEVICE_DELETED for %s" % path)

    def refused(self, path):
        """The kernel's _OST for an eject request it refused: its status."""
        dev = path.rsplit("/", 1)[-1]
        e = self._event(lambda e: e["event"] == "ACPI_DEVICE_OST" and
                        e["data"]["info"].get("source") == 3 and
                        e["data"]["info"].get("device") in (dev, path),
                        "ACPI_DEVICE_OST (eject refused) for %s" % path)
        return e["data"]["info"]["status"]


class Run:
    """Collects (case, ok, detail); a case that raises fails with the reason."""

    def __init__(self, m, prefix):
        self.m, self.sh, self.host, self.prefix = m, Shell(m), Host(m), prefix
        self.results = []

    def check(self, case, ok, detail=""):
        self.results.append((self.prefix + case, bool(ok), detail))
        return ok

    def shell(self, line, want, case=None):
        out = self.sh.run(line)
        ok = out is not None and re.search(want, out) is not None
        if case or not ok:
            self.check(case or line, ok, "%r printed %r" % (line, (out or "")[-400:]))
        return out

    def log_has(self, pattern, case, timeout=0):
        """The serial log has (or, with timeout, comes to have) a match."""
        return self.check(case, self.m.expect(pattern, timeout),
                          "the log has no line matching %r" % pattern)


def _hold(r, cpus, per_cpu):
    for c in cpus:
        r.shell("demo hold %d %d" % (per_cpu, c), r"queued %d items" % per_cpu)
    n = per_cpu * len(cpus)
    r.shell("demo wait", r"demo: %d items held" % n,
            "%d items block on cpus %s" % (n, ",".join(map(str, cpus))))
    return n


def _release(r, n, case):
    r.shell("demo release", r"released %d held items" % n)
    r.shell("demo wait", r"demo: 0 items held at the gate, the others finished", case)


def _remove_all(r, cores, case):
    """device_del of every slot in cores at once; each vCPU gone, each CPU
    offline and ejected by the kernel, each slot free."""
    paths = [r.host.remove(c) for c in cores]
    for path in paths:
        r.host.removed(path)
    slots = r.host.slots()
    r.check(case, all(slots.get(c) is None for c in cores), "slots after: %r" % slots)
    for c in cores:
        # Printed right after the eject, which QEMU answers at once.
        r.log_has(r"acpi-cpuhp: cpu%d offline and ejected" % c,
                  "cpu%d offline, then ejected" % c, EVENT_TIMEOUT)


def _add_all(r, cores, case):
    devs = [r.host.add(c) for c in cores]
    statuses = [r.host.added(d) for d in devs]
    r.check(case, statuses == [0] * len(devs), "_OST statuses %r" % statuses)
    for c in cores:
        r.log_has(r"acpi-cpuhp: cpu%d online" % c, "cpu%d online after device_add" % c, EVENT_TIMEOUT)


def _refusal(r, case):
    """A CPU that cannot go: the kernel refuses with _OST, ejects nothing, and
    the CPU keeps running. Returns its APIC id (= its CPU number here)."""
    mark = r.m.mark()
    r.m.send("test cpuhp_host_refusal\r")
    got = r.m.expect_from(mark, r"cpu(\d+) \(APIC id (\d+)\) refuses to go", 120)
    if not r.check(case + " (the test names its CPU)", got, "no 'refuses to go' line"):
        return None
    cpu, apic = int(got.group(1)), int(got.group(2))
    path = r.host.remove(apic)
    status = r.host.refused(path)
    r.check(case, status == 1, "_OST status %r (want 1, a failure)" % status)
    ok = r.m.expect_from(mark, r"ok 1 a_refused_removal_leaves_the_cpu_running\s(.|\n)*?baton> ",
                         120)
    r.check(case + " (the kernel test passed)", ok, "no 'ok 1' from cpuhp_host_refusal")
    r.shell("cpus", r"cpu%d\s+apic %d\s+online " % (cpu, apic), case + " (the CPU still runs)")
    r.check(case + " (QEMU still has it)", r.host.slots().get(apic) == path,
            "slot %d has %r" % (apic, r.host.slots().get(apic)))
    return apic


def interact_q35(m, boot):
    """-smp 2,maxcpus=8 on q35: add four vCPUs, hold work on every CPU, the
    boot CPU refused by QEMU, a removal the kernel refuses, then that vCPU
    removed once it may go, its work held; every held item runs once released."""
    r = Run(m, "vcpu-hotplug.")
    if not r.sh.ready():
        return [("vcpu-hotplug.shell prompt", False, "no prompt")]
    try:
        r.log_has(r"acpi-cpuhp: modern CPU hotplug interface at port 0xcd8: 8 slots, 2 with a "
                  r"vCPU, as in the MADT", "the block lists 8 slots, 2 vCPUs, as the MADT")
        r.log_has(r"acpi-cpuhp: events by SCI \(IRQ 9", "events come by the SCI")
        r.shell("cpus", r"cpu2 +apic 2 +not present(.|\n)*host: 8 slots, 2 with a vCPU",
                "cpus shows the empty slots")
        _add_all(r, [2, 3, 4, 5], "four vCPUs added, each online with _OST status 0")
        out = r.shell("cpus", r"host: 8 slots, 6 with a vCPU", "cpus: 6 slots filled") or ""
        r.check("every present CPU online",
                len(re.findall(r"^cpu\d+ +apic \d+ +online ", out, re.M)) == 6, out[-900:])
        n = _hold(r, [1, 2, 3, 4, 5], 4)
        try:
            r.host.q.execute("device_del", id=r.host.slots()[0])
            r.check("QEMU refuses device_del of the boot CPU", False, "QEMU accepted device_del")
        except qemu.QMPError as e:  # that refusal and no other
            r.check("QEMU refuses device_del of the boot CPU",
                    e.error_class == "GenericError" and e.desc == "Boot CPU is unpluggable",
                    "%s: %s" % (e.error_class, e.desc))
        cpu = _refusal(r, "a refused removal leaves the CPU running (_OST)") or 5
        _remove_all(r, [cpu], "the same vCPU removed once it may go, its work held")
        r.shell("cpus", r"cpu%d +apic %d +not present(.|\n)*host: 8 slots, 5 with a vCPU" % (
            cpu, cpu), "cpus shows it not present")
        r.shell("demo wait", r"demo: %d items held" % n, "its items wait, run by its trustee")
        _release(r, n, "every held item finished once released: nothing lost")
        r.shell("cpus", r"cpu0 +apic 0 +online ", "the boot CPU runs on")
    except qemu.QemuError as e:
        r.check("host", False, str(e))
    r.sh.poweroff()
    return r.results


def interact_pc(m, boot):
    """-smp 2,maxcpus=4 on pc (PIIX4): the block at 0xaf00; add two vCPUs,
    remove the -smp one with work held on it."""
    r = Run(m, "vcpu-hotplug-pc.")
    if not r.sh.ready():
        return [("vcpu-hotplug-pc.shell prompt", False, "no prompt")]
    try:
        r.log_has(r"acpi-cpuhp: modern CPU hotplug interface at port 0xaf00: 4 slots, 2 with a "
                  r"vCPU", "the PIIX4 block lists 4 slots, 2 vCPUs")
        r.log_has(r"acpi-cpuhp: events by SCI", "events come by the SCI")
        _add_all(r, [2, 3], "two vCPUs added")
        n = _hold(r, [1], 3)
        _remove_all(r, [1], "a -smp vCPU removed while its work was held")
        _release(r, n, "its held items finished")
        r.shell("cpus", r"host: 4 slots, 3 with a vCPU", "cpus: 3 slots filled")
    except qemu.QemuError as e:
        r.check("host", False, str(e))
    r.sh.poweroff()
    return r.results


def interact_poll(m, boot):
    """acpi_cpuhp=poll: the same without the SCI."""
    r = Run(m, "vcpu-hotplug-poll.")
    if not r.sh.ready():
        return [("vcpu-hotplug-poll.shell prompt", False, "no prompt")]
    try:
        r.log_has(r"acpi-cpuhp: events by polling every 100 ms", "events come by polling")
        _add_all(r, [2], "a vCPU added")
        _remove_all(r, [2], "a vCPU removed")
        r.shell("cpus", r"host: 4 slots, 2 with a vCPU; events by polling", "cpus says polling")
    except qemu.QemuError as e:
        r.check("host", False, str(e))
    r.sh.poweroff()
    return r.results
