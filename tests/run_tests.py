#!/usr/bin/env python3
"""tests/run_tests.py - baton's test runner (`make test`).

Runs, in order: the host unit tests of lib/ (built with ASan and UBSan)
and the source checks (tests/check_*.py), the kernel test boots (KTAP from `test=all` under several -smp, -m and
machine types), and the harness's own tests, which boot deliberately
failing, panicking and hanging kernels and check that the judge below
calls each of them a failure for the right reason.

Every case in a KTAP report counts as one test; a boot that times out,
panics, prints a WARNING, exits with the wrong status or has a missing or
short plan adds one failure. Serial logs go to BUILD/test-logs/; failing
boots are named with their log. The last line is "N passed, N failed";
the exit status is non-zero if anything failed.

  run_tests.py --iso build/baton.iso [all | host | kernel | harness | matrix] [-k NAME]
  run_tests.py --iso build/baton.iso torture [--duration S] [--interval MS] [--smp N] [--seed N]

`matrix` (make test-matrix) boots -smp 1..64 on pc and q35 and several
topologies; it is not part of `make test` (it takes a while). `torture`
(make torture) runs the CPU-hotplug torture (kernel/tools/torture.h) for
--duration seconds, showing its progress, keeps the serial log in
BUILD/test-logs/torture.log and fails unless its one verdict line is PASS.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402
import qemu  # noqa: E402
import shell_tests  # noqa: E402

BOOT_TIMEOUT = 300      # seconds; generous: TCG on a loaded 2-core machine
PANIC_TEXT = "Kernel panic - not syncing"
TEST_ARGS = "panic=exit"


class Boot:
    """One QEMU boot and what must come of it.

    expect: "pass"     every KTAP case passes or skips, status 33
            "fail"     the judge must report failed cases (names in cases_failing)
            "panic"    the judge must report a panic
            "timeout"  the judge must report a timeout
    must_contain: regexes the serial log must match (each checked).
    send_on: (regex, bytes): once the serial log matches regex, write the
            bytes to the guest's serial input (a boot that never prints it
            fails).
    interact: fn(machine, boot) -> [(case, ok, detail)]: a boot without
            test= (it ends at the shell prompt) driven through the serial
            console; it must power the machine off (QEMU status 0).
    gdb:    give QEMU a GDB stub on a free port (boot.gdb_port).
    log_check: fn(log) -> [problems], run on the finished boot's log.
    """

    def __init__(self, name, tests, smp=1, mem="512M", machine="q35", expect="pass",
                 must_contain=(), timeout=BOOT_TIMEOUT, extra_cmdline="", cases_failing=(),
                 qmp_check=None, qemu_kernel=False, alone=False, send_on=None, interact=None,
                 gdb=False, log_check=None):
        self.name = name
        self.tests = tests
        self.cmdline = " ".join(x for x in ("test=" + tests if tests else "", TEST_ARGS,
                                            extra_cmdline) if x)
        self.interact = interact
        self.gdb = gdb
        self.gdb_port = None
        self.log_check = log_check
        self.iso = None
        self.smp, self.mem, self.machine = smp, mem, machine
        self.expect = expect
        self.must_contain = must_contain
        self.timeout = timeout
        self.cases_failing = cases_failing
        self.qmp_check = qmp_check
        self.qemu_kernel = qemu_kernel  # boot baton.elf with QEMU -kernel, not GRUB
        self.alone = alone              # timing-sensitive: run with no other boot
        self.send_on = send_on


def check_cpu_count(m, boot):
    cpus = m.qmp.execute("query-cpus-fast")
    if len(cpus) != int(str(boot.smp).split(",")[0]):
        return ["QMP query-cpus-fast lists %d CPUs, expected %s" % (len(cpus), boot.smp)]
    return []


def cpu_counts(smp):
    """(possible, present) for a QEMU -smp value such as "2,maxcpus=8"."""
    parts = str(smp).split(",")
    present = int(parts[0]) if parts[0].isdigit() else None
    opts = dict(p.split("=", 1) for p in parts if "=" in p)
    if present is None:
        present = int(opts.get("cpus", 1))
    return int(opts.get("maxcpus", present)), present


def serial_rx_pattern(n):
    """What the serial_rx suite expects: rx_test_byte() in
    tests/kernel/test_serial.c. Every byte value occurs (qemu.py: the
    serial input passes all of them)."""
    return bytes(((i * 7) ^ ((i >> 8) * 0x35)) & 0xFF for i in range(n))


# The CPU-hotplug torture's verdict (kernel/tools/torture.c prints exactly one).
TORTURE_PASS = r"\]\[cpu\d+\] torture: PASS\r?$"
TORTURE_VERDICT = r"\]\[cpu\d+\] torture: (PASS|FAIL\b[^\r\n]*)\r?$"
TORTURE_CYCLES = 500
# 500 cycles took 9-130 s at -smp 4 on a 2-core host, depending on its
# load (about 30 s beside the rest of `make test`). A hung operation is
# reported by the torture's watchdog after 30 s and the run ended 30 s
# later, so this only catches a kernel that stops altogether.
TORTURE_TIMEOUT = 480
TORTURE_MARGIN = 300    # make torture: beyond DURATION (boot, the end's checks)


def check_torture_verdict(log):
    """Exactly one verdict line, and it is PASS (the must_contain of the
    boot checks the PASS line itself)."""
    verdicts = re.findall(TORTURE_VERDICT, log, re.M)
    if len(verdicts) != 1:
        return ["the torture printed %d verdict lines (%s), expected exactly one" % (
            len(verdicts), ", ".join(v.strip() for v in verdicts) or "none")]
    if verdicts[0] != "PASS":
        return ["torture: %s" % verdicts[0].strip()]
    return []


def torture_boot(duration, interval, smp, seed, mem="512M", machine="q35"):
    """`make torture`: run for duration seconds (torture_cycles=0)."""
    return Boot("torture", "hotplug_torture", smp=smp, mem=mem, machine=machine,
                extra_cmdline="torture_cycles=0 torture_duration_s=%d torture_interval_ms=%d "
                              "torture_seed=%d" % (duration, interval, seed),
                timeout=duration + TORTURE_MARGIN, must_contain=[TORTURE_PASS],
                log_check=check_torture_verdict)


SERIAL_RX_BYTES = 4096
SERIAL_RX_READY = r"# serial_rx: ready for %d bytes" % SERIAL_RX_BYTES


KERNEL_BOOTS = [
    Boot("smp1-pc-64M", "all", smp=1, mem="64M", machine="pc"),
    Boot("smp1-q35-64M", "all", smp=1, mem="64M", machine="q35"),
    Boot("smp2-pc-512M", "all", smp=2, mem="512M", machine="pc"),
    Boot("smp4-pc-512M", "all", smp=4, mem="512M", machine="pc"),
    Boot("smp4-q35-512M", "all", smp=4, mem="512M", machine="q35", qmp_check=check_cpu_count),
    Boot("smp8-q35-512M", "all", smp=8, mem="512M", machine="q35"),
    Boot("smp2-maxcpus8-q35", "smp,hotplug", smp="2,maxcpus=8", mem="256M", machine="q35"),
    Boot("smp2-pc-8G", "all", smp=2, mem="8G", machine="pc"),
    # 100,000 cross-CPU wake-up round trips; alone, since each one waits for
    # the host to schedule a halted vCPU.
    Boot("wakeup-pingpong-smp2", "sched_pingpong", smp=2, mem="256M", machine="q35", alone=True),
    Boot("smp4-q35-8G", "all", smp=4, mem="8G", machine="q35"),
    # CPU-hotplug torture (kernel/tools/torture.h): 500 offline/online cycles
    # under workqueue and timer load, invariants checked all along.
    Boot("hotplug-torture-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=%d torture_interval_ms=0" % TORTURE_CYCLES,
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS], log_check=check_torture_verdict),
    # Its variants, shorter: thread creation failing around hotplug calls,
    # a failing step (cancelled offlines, failed onlines), the unbound
    # workqueue's attributes changing; and with the workqueue's
    # non-reentrancy guard off, the torture must see items run twice at once.
    Boot("hotplug-torture-fail-workers-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 torture_fail_workers=1",
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS,
                                                r"variants \( fail_workers\): \d+ cancelled offlines"],
         log_check=check_torture_verdict),
    Boot("hotplug-torture-fail-steps-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 torture_fail_steps=1",
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS, r"variants \( fail_steps\): [1-9]\d* "
                                                r"cancelled offlines, [1-9]\d* failed onlines"],
         log_check=check_torture_verdict),
    Boot("hotplug-torture-attrs-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 torture_attrs=1",
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS, r"variants \( attrs\): .*, [1-9]\d* "
                                                r"attribute changes"],
         log_check=check_torture_verdict),
    Boot("hotplug-torture-no-reentrancy-guard", "hotplug_torture", expect="fail", smp=4,
         mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 wq_lab_no_reentrancy_guard=1",
         timeout=TORTURE_TIMEOUT,
         cases_failing=["hotplug_torture.cpus_go_offline_and_online_under_load"],
         must_contain=[r"torture: violation \d+: item \S+: \d+ executions at once",
                       r"\] torture: FAIL \(\d+ violations\)"]),
    # The shell, driven through the serial console; a megabyte of random
    # input; the GDB helpers against a live machine; the trace converter.
    Boot("shell-session-smp4", "", smp=4, interact=shell_tests.interact_session),
    Boot("shell-fuzz-smp2", "", smp=2, mem="256M", interact=shell_tests.interact_fuzz),
    Boot("gdb-helpers-smp2", "", smp=2, mem="256M", gdb=True, interact=shell_tests.interact_gdb),
    Boot("trace-scenarios-smp2", "trace_scenarios", smp=2, mem="256M",
         log_check=shell_tests.check_trace_log),
    # The labs' checks (docs/labs.md).
    Boot("labs-smp4", "", smp=4, interact=shell_tests.interact_labs),
    Boot("lab5-hotplug-callback", "lab_hotplug_callback", smp=4),
    # COM1 input end to end: the host types a pattern, the interrupt fills
    # the ring, a workqueue worker hands the bytes to the test's consumer.
    Boot("serial-rx-smp2", "serial_rx", smp=2, mem="256M", machine="q35",
         send_on=(SERIAL_RX_READY, serial_rx_pattern(SERIAL_RX_BYTES))),
    # Bad parameters are reported and the boot goes on with the defaults.
    Boot("bad-cmdline", "params", smp=1, machine="pc",
         extra_cmdline="loglevel=banana nosuchparam=1 panic=sometimes loglevel=99",
         must_contain=[r"unknown parameter 'nosuchparam' ignored",
                       r"bad value 'banana' for loglevel= \(malformed.*using default 7",
                       r"bad value 'sometimes' for panic= .*using earlier value exit",
                       r"bad value '99' for loglevel= \(out of range"]),
    # The crash reports a test build must produce, read by a person.
    Boot("report-page-fault", "crash_page_fault", expect="panic",
         must_contain=[r"#PF page fault \(vector 14\)", r"NULL pointer dereference",
                       r"RIP: 0008:[0-9a-f]{16} <crash_null_deref\+0x",
                       r"Call trace:", r"\] (\? )?crash_page_fault_case\+0x"]),
    Boot("report-stack-overflow", "crash_stack_overflow", expect="panic",
         must_contain=[r"kernel stack overflow: the stack of crash-test .* guard page",
                       r"#DF double fault", r"\] crash_recurse\+0x",
                       r"Kernel panic - not syncing: kernel stack overflow"]),
    Boot("report-spinlock-recursion", "crash_spinlock_recursion", expect="panic",
         must_contain=[r"spinlock recursion: cpu0 takes lock 'twice' at "
                       r"crash_spinlock_recursion_case\+0x.*already holding it since "
                       r"crash_spinlock_recursion_case\+0x"]),
    Boot("report-list-corruption", "crash_list_corruption", expect="panic",
         must_contain=[r"list_add corruption: node 0x[0-9a-f]+ \(not on a stack\), prev 0x[0-9a-f]+ "
                       r"\(not on a stack\) whose next is 0x[0-9a-f]+, next 0x[0-9a-f]+ ",
                       r"\] crash_list_corruption_case\+0x"]),
    Boot("report-mutex-recursion", "crash_mutex_recursion", expect="panic",
         must_contain=[r"mutex 'again': recursive mutex_lock by init at "
                       r"crash_mutex_recursion_case\+0x.*it took it at crash_mutex_recursion_case\+0x"]),
    Boot("report-double-free", "kmalloc_debug",
         must_contain=[r"BUG: kmalloc: double free of 0x[0-9a-f]+",
                       r"allocated at kmalloc_debug_double_free\+0x.*last freed at "
                       r"kmalloc_debug_double_free\+0x",
                       r"BUG: kmalloc: out-of-bounds write .* write past the end",
                       r"BUG: kmalloc: write after free"]),
]

def matrix_boots():
    """`make test-matrix`: every -smp from 1 to 64 on pc and q35, some
    topologies, and hot-pluggable CPUs left out at boot."""
    boots = []
    for machine in ("pc", "q35"):
        for n in range(1, 65):
            boots.append(Boot("matrix-%s-smp%d" % (machine, n), "smp", smp=n, mem="256M",
                              machine=machine, timeout=300))
        for smp in ("2,maxcpus=8", "12,sockets=2,cores=3,threads=2", "8,sockets=1,cores=4,threads=2",
                    "6,sockets=3,cores=2,threads=1", "64,sockets=4,cores=8,threads=2"):
            boots.append(Boot("matrix-%s-%s" % (machine, smp.replace(",", "-").replace("=", "")),
                              "smp", smp=smp, mem="256M", machine=machine, timeout=300))
    return boots


# The harness must be able to fail: these kernels are broken on purpose.
HARNESS_BOOTS = [
    Boot("harness-detects-failure", "selftest_fail", expect="fail",
         cases_failing=["selftest_fail.fails_on_purpose"]),
    # On 4 CPUs: the other three are stopped by NMI and the report stays whole.
    Boot("harness-detects-panic", "selftest_panic", expect="panic", smp=4,
         must_contain=[r"Kernel panic - not syncing: deliberate panic from the selftest_panic suite"]),
    Boot("harness-detects-hang", "selftest_hang", expect="timeout", timeout=15),
    Boot("harness-detects-unknown-suite", "no_such_suite", expect="fail"),
    # Serial input with one byte missing in the middle: the suite must see it.
    Boot("harness-detects-serial-loss", "serial_rx", expect="fail", smp=2, mem="256M",
         cases_failing=["serial_rx.host_bytes_arrive_in_order"],
         send_on=(SERIAL_RX_READY, serial_rx_pattern(SERIAL_RX_BYTES)[:1000] +
                  serial_rx_pattern(SERIAL_RX_BYTES)[1001:])),
    # And with nothing sent, it must give up (after its 60 s) and fail.
    Boot("harness-detects-serial-silence", "serial_rx", expect="fail", smp=2, mem="256M",
         cases_failing=["serial_rx.host_bytes_arrive_in_order"]),
    # The CPU-hotplug torture must fail when an invariant breaks: a lost
    # queueing (its accounting), and a hung operation (its watchdog, which
    # reports after 30 s and ends the stuck run 30 s later).
    Boot("harness-detects-torture-loss", "hotplug_torture", expect="fail", smp=2, mem="256M",
         extra_cmdline="torture_cycles=30 torture_inject=lost",
         cases_failing=["hotplug_torture.cpus_go_offline_and_online_under_load"],
         must_contain=[r"torture: violation \d+: item plain/0: queued \d+ times, .*\(lost 1\)",
                       r"\] torture: FAIL \(\d+ violations\)"]),
    Boot("harness-detects-torture-hang", "hotplug_torture", expect="fail", smp=2, mem="256M",
         extra_cmdline="torture_cycles=100000 torture_inject=hang", timeout=240,
         cases_failing=["hotplug_torture.cpus_go_offline_and_online_under_load"],
         must_contain=[r"torture/onoff: injected hang\(0\) has not returned after 3\d s",
                       r"\] torture: FAIL \(\d+ violations\)"]),
    # Lab 2: with the non-reentrancy guard off, the test must catch it.
    Boot("lab2-no-reentrancy-guard", "workqueue", expect="fail", smp=2, mem="256M",
         extra_cmdline="wq_lab_no_reentrancy_guard=1",
         cases_failing=["workqueue.non_reentrant_under_contention"]),
    # Not a harness test, but the same shape: a wrong loader must be refused
    # with a message, and then the kernel halts (so the boot "hangs").
    Boot("wrong-loader-refused", "", expect="timeout", timeout=10, qemu_kernel=True,
         must_contain=[r"baton: started by a Multiboot \(version 1\) loader"]),
]


def judge(log, status, timed_out, boot, interactions=None):
    """Return (cases, problems): cases is [(name, "pass"|"fail"|"skip")]."""
    if boot.interact:
        # Driven through the shell: the cases are the interaction's; no KTAP.
        interactions = interactions or [("interaction", False, "did not run")]
        cases = [(name, "pass" if ok else "fail") for name, ok, _ in interactions]
        problems = ["%s: %s" % (name, detail) for name, ok, detail in interactions if not ok]
        if timed_out:
            problems.append("timeout after %d s (the session did not power off)" % boot.timeout)
        elif status != 0:
            problems.append("QEMU exit status %s after poweroff, expected 0" % status)
        if PANIC_TEXT in log:
            problems.append("panic: %s" % log[log.index(PANIC_TEXT):].split("\n")[0].strip())
        if re.search(r"\[cpu\d+\] WARNING:", log):
            problems.append("the kernel printed a WARNING")
        return cases, problems
    rep = ktap.parse(log)
    cases = [("%s.%s" % (s.name, c.name), c.status) for s, c in rep.cases()]
    problems = list(rep.problems)
    if boot.log_check and not timed_out:
        problems += boot.log_check(log)
    if timed_out:
        problems.append("timeout after %d s" % boot.timeout)
    if PANIC_TEXT in log:
        line = log[log.index(PANIC_TEXT):].split("\n")[0].strip()
        problems.append("panic: %s" % line)
        # panic() stops the other CPUs: nobody else may print after it.
        head = log[:log.index(PANIC_TEXT)].rsplit("\n", 1)[-1]
        me = re.search(r"\[cpu(\d+)\]", head)
        others = set(re.findall(r"\[cpu(\d+)\]", log[log.index(PANIC_TEXT):])) - {me and me.group(1)}
        if me and others:
            problems.append("after the panic, CPUs %s still printed" % ", ".join(sorted(others)))
    elif not timed_out:
        want = qemu.EXIT_FAILURE if any(st == "fail" for _, st in cases) else qemu.EXIT_SUCCESS
        if status != want:
            problems.append("QEMU exit status %s, expected %d%s" % (
                status, want, " (crash or triple fault?)" if status in (0, 1) else ""))
    if re.search(r"\[cpu\d+\] WARNING:", log):
        problems.append("the kernel printed a WARNING")
    if boot.expect == "pass" and set(boot.tests.split(",")) & {"all", "smp"}:
        # Every CPU QEMU gave us must be counted, and every present one online.
        possible, present = cpu_counts(boot.smp)
        summary = "smp: %d CPUs possible, %d present, %d online" % (possible, present, present)
        if summary not in log:
            problems.append("log lacks the line '%s'" % summary)
    for rx in boot.must_contain:
        if not re.search(rx, log, re.M):
            problems.append("log lacks /%s/" % rx)
    return cases, problems


def send_when_ready(m, boot, deadline, problems):
    """Wait for boot.send_on's regex in the serial log, then send its bytes."""
    regex, data = boot.send_on
    if not m.expect(regex, max(0, deadline - time.time())):
        problems.append("the log never matched /%s/: no serial input sent" % regex)
        return
    try:
        m.send(data)
    except OSError as e:            # QEMU exited under us
        problems.append("sending %d bytes to the serial port failed: %s" % (len(data), e))


def run_boot(boot, iso, logdir):
    kernel = os.path.join(os.path.dirname(iso), "baton.elf") if boot.qemu_kernel else None
    boot.iso = iso
    qemu_extra = []
    if boot.gdb:
        boot.gdb_port = shell_tests.free_port()
        qemu_extra = ["-gdb", "tcp:127.0.0.1:%d" % boot.gdb_port]
    m = qemu.Machine(iso, name=boot.name, smp=boot.smp, mem=boot.mem, machine=boot.machine,
                     cmdline=boot.cmdline, workdir=logdir, qmp=True, kernel=kernel, extra=qemu_extra)
    t0 = time.time()
    extra = []
    sender = None
    interactions = None
    try:
        m.start()
        if boot.interact:
            interactions = boot.interact(m, boot)
        if boot.send_on:
            # In a thread: a guest that stops reading must not stop the clock.
            sender = threading.Thread(target=send_when_ready, daemon=True,
                                      args=(m, boot, t0 + boot.timeout, extra))
            sender.start()
        if boot.qmp_check:
            extra += boot.qmp_check(m, boot)
    except qemu.QemuError as e:
        extra.append(str(e))
    status = m.wait(max(1, boot.timeout - (time.time() - t0)), nmi_on_timeout=True)
    if sender:
        sender.join(5)
    cases, problems = judge(m.output, status, status is None, boot, interactions)
    return cases, problems + extra, m.log_path, time.time() - t0


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def add(self, ok, line):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL  " + line, flush=True)


def report_boot(t, boot, cases, problems, log, secs):
    if boot.expect == "pass":
        for name, st in cases:
            if st == "fail":
                t.add(False, "%s: %s" % (boot.name, name))
            elif st == "pass":
                t.passed += 1
        for p in problems:
            t.add(False, "%s: %s (log: %s)" % (boot.name, p, log))
        n = sum(1 for _, st in cases if st == "pass")
        print("boot  %-28s %3d passed, %d skipped  (%.0f s)%s" % (
            boot.name, n, sum(1 for _, st in cases if st == "skip"), secs,
            "" if not problems and all(st != "fail" for _, st in cases) else "  <- FAILED"),
            flush=True)
        return
    # A harness test: the judge must have called it a failure, for the right reason.
    failing = [name for name, st in cases if st == "fail"]
    if boot.expect == "fail":
        ok = bool(failing or problems) and not any(p.startswith(("panic", "timeout")) for p in problems)
        ok = ok and all(n in failing for n in boot.cases_failing)
    elif boot.expect == "panic":
        ok = any(p.startswith("panic") for p in problems)
    else:
        ok = any(p.startswith("timeout") for p in problems)
    missing = [p for p in problems if p.startswith("log lacks")]
    ok = ok and not missing
    t.add(ok, "%s: the harness did not report the expected %s (problems: %s; failing: %s; log: %s)"
          % (boot.name, boot.expect, problems, failing, log))
    print("harness %-26s %s  (%.0f s)" % (boot.name, "ok" if ok else "NOT DETECTED", secs),
          flush=True)


def run_host(t, build):
    exe = os.path.join(build, "host", "lib_tests")
    if not os.path.exists(exe):
        t.add(False, "host: %s was not built" % exe)
        return
    r = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    with open(os.path.join(build, "test-logs", "host.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    rep = ktap.parse(r.stdout)
    for s, c in rep.cases():
        t.add(c.status != "fail", "host: %s.%s %s" % (s.name, c.name, " | ".join(c.diagnostics)))
    for p in rep.problems:
        t.add(False, "host: %s" % p)
    if r.returncode != 0:
        t.add(False, "host: lib_tests exited with %d (sanitizer report?): %s" % (
            r.returncode, r.stderr.strip()[-2000:]))
    c = rep.counts()
    print("host  %-28s %3d passed, %d skipped" % ("lib_tests", c["pass"], c["skip"]), flush=True)
    # Checks of the sources themselves: the workqueue is the only
    # deferred-work mechanism (the code and the table in docs/workqueue.md
    # agree); README.md and docs/guide.md list the shell's commands; the C
    # sources keep the house style (.clang-format).
    for name in ("check_deferred", "check_shell_commands", "check_format"):
        run_check(t, name)


def run_check(t, name):
    """Run tests/NAME.py. Each "ok N ..." / "not ok N ..." line it prints is
    one case; the "    # ..." lines after a result explain that result."""
    chk = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    r = subprocess.run([sys.executable, chk], capture_output=True, text=True, timeout=300)
    results = []  # [ok, what, [details]]
    for line in r.stdout.splitlines():
        m = re.match(r"(ok|not ok) \d+ (?:- )?(.*)$", line)
        if m:
            results.append([m.group(1) == "ok", m.group(2), []])
        elif line.startswith("    #") and results:
            results[-1][2].append(line.strip("# ").strip())
    for ok, what, details in results:
        t.add(ok, "host: %s: %s %s" % (name, what, " | ".join(details)))
        for d in details if not ok else []:
            print("      " + d, flush=True)
    if not results or (r.returncode != 0) == all(ok for ok, _, _ in results):
        t.add(False, "host: %s exited with %d and reported %d cases: %s" % (
            name, r.returncode, len(results), (r.stdout + r.stderr).strip()[-2000:]))
    print("host  %-28s %3d passed, %d failed" % (name, sum(ok for ok, _, _ in results),
                                                 sum(not ok for ok, _, _ in results)), flush=True)


def run_torture(a, logdir):
    """`make torture`: one long torture boot; its "torture:" lines are
    shown as they come. Exit status 0 only for a PASS."""
    boot = torture_boot(a.duration, a.interval, a.smp, a.seed, a.mem, a.machine)
    log = os.path.join(logdir, boot.name + ".log")
    if os.path.exists(log):
        os.unlink(log)
    print("torture: %d s at -smp %s, interval %d ms, seed %d; serial log %s (timeout %d s)" % (
        a.duration, a.smp, a.interval, a.seed, log, boot.timeout), flush=True)
    done = threading.Event()

    def follow():
        pos = 0
        while not done.wait(2):
            try:
                with open(log, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
            except OSError:
                continue
            end = chunk.rfind(b"\n") + 1
            pos += end
            for line in chunk[:end].decode("utf-8", "replace").splitlines():
                if " torture: " in line:
                    print("  " + line.strip(), flush=True)

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    result = run_boot(boot, a.iso, logdir)
    done.set()
    follower.join()
    t = Tally()
    report_boot(t, boot, *result)
    print("%d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", nargs="?", default="all",
                    choices=["all", "host", "kernel", "harness", "matrix", "torture"])
    ap.add_argument("--duration", type=int, default=3600, help="torture: seconds")
    ap.add_argument("--interval", type=int, default=0, help="torture: ms between hotplug operations")
    ap.add_argument("--smp", default="4", help="torture: QEMU -smp")
    ap.add_argument("--mem", default="512M", help="torture: QEMU -m")
    ap.add_argument("--machine", default="q35", help="torture: QEMU -M")
    ap.add_argument("--seed", type=int, default=0, help="torture: PRNG seed (0: from the clock)")
    ap.add_argument("--iso", default="build/baton.iso")
    ap.add_argument("--build", default="build")
    ap.add_argument("-k", dest="only", help="run only boots whose name contains this")
    ap.add_argument("-j", dest="jobs", type=int, default=int(os.environ.get("JOBS", os.cpu_count() or 2)))
    a = ap.parse_args()
    logdir = os.path.join(a.build, "test-logs")
    os.makedirs(logdir, exist_ok=True)
    if a.what == "torture":
        run_torture(a, logdir)
    t = Tally()
    if a.what in ("all", "host"):
        run_host(t, a.build)
    boots = []
    if a.what in ("all", "kernel"):
        boots += KERNEL_BOOTS
    if a.what in ("all", "harness"):
        boots += HARNESS_BOOTS
    if a.what == "matrix":
        boots += matrix_boots()
    if a.only:
        boots = [b for b in boots if a.only in b.name]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futures = [(b, ex.submit(run_boot, b, a.iso, logdir)) for b in boots if not b.alone]
        for b, f in futures:
            report_boot(t, b, *f.result())
    for b in boots:
        if b.alone:
            report_boot(t, b, *run_boot(b, a.iso, logdir))
    print("%d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)


if __name__ == "__main__":
    main()
