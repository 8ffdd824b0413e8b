#!/usr/bin/env python3
"""tests/harness/run_tests.py - baton's test runner (`make test`).

Runs, in order: the host unit tests of lib/ (built with ASan and UBSan),
the source checks (tests/checks/check_*.py), the judge's own unit tests
(tests/harness/test_ktap.py) and the trace pictures' (tests/checks/test_trace2json.py),
the kernel test boots (KTAP from `test=all` under several -smp, -m and
machine types), and the harness's own tests, which boot deliberately
failing, panicking and hanging kernels and check that the judge below
calls each of them a failure for the right reason.

Every case in a KTAP report counts as one test; a boot that times out,
panics, prints a WARNING or an error report ("[cpuN] BUG: ..."), exits
with the wrong status or has a missing or short plan adds one failure per
problem. What each KTAP boot must report comes from the kernel's own suite
table (BUILD/ktest-manifest.json, made at build time by
scripts/ktest_manifest.py): a suite or case that is missing, a plan that
disagrees with the table, a case that died mid-run (named, with the cases
that never ran) or a SKIP the boot's configuration does not explain
(SKIP_RULES) fails, with its name. Every boot, interactive ones too, is
bounded by its timeout: at the deadline QEMU gets an NMI (its report goes
to the log), is killed, and the boot fails with its log kept. Serial logs
go to BUILD/test-logs/; failing boots are named with their log. The last
line is "N passed, N failed"; the exit status is non-zero if anything
failed.

  run_tests.py --iso build/baton.iso [all | host | kernel | harness | matrix] [-k NAME]
  run_tests.py --iso build/baton.iso torture [--duration S] [--interval MS] [--smp N] [--seed N]
  run_tests.py --iso build/baton.iso repeat --times N [--load 1] [-k NAME] [-j N]

`matrix` (make test-matrix) boots -smp 1..64 on pc and q35 and several
topologies, and runs every suite at -smp 16, 32 and 64 on both machines;
it is not part of `make test` (it takes a while: README.md). `torture`
(make torture) runs the CPU-hotplug torture (kernel/tools/torture.h) for
--duration seconds, showing its progress, keeps the serial log in
BUILD/test-logs/torture.log and fails unless its one verdict line is PASS.
`repeat` (make test-repeat) hunts flaky tests: the boots of `make test`
(not its host checks; -k as for the others) --times times, each run's logs
in BUILD/test-logs/repeat/run-NN, with --load 1 beside the torture in a
QEMU of its own; it ends with a table of what failed, in how many runs and
which, with each one's log, and "N runs: X clean, Y with failures".
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # tests/
from harness import ktap, qemu  # noqa: E402
from vm import shell_tests, torture_qmp, vcpu_hotplug_tests  # noqa: E402

BOOT_TIMEOUT = 300      # seconds; generous: TCG on a loaded 2-core machine
PANIC_TEXT = "Kernel panic - not syncing"
TEST_ARGS = "panic=exit"


class Boot:
    """One QEMU boot and what must come of it.

    expect: "pass"     every KTAP case passes or skips, status 33
            "fail"     the judge must report failed cases (names in cases_failing)
            "panic"    the judge must report a panic
            "timeout"  the judge must report a timeout
            "halt"     once the log matches halt_on, every CPU must halt with
                       interrupts off (checked through QMP), and QEMU is stopped
    must_contain: regexes the serial log must match (each checked).
    expect_problems: (harness tests) regexes each of which some problem the
            judge reports must match: the exact failure, not any failure.
    hang_after: (regex, s): once the log matches regex, the boot's deadline
            comes s seconds later (a hang test times out in the case, not
            on a host too busy to reach it).
    halt_on: regex: once the log matches it, check that every CPU halted
            with interrupts off (QMP), then stop QEMU (expect "halt", or a
            panic=halt "panic" whose other CPUs must have stopped).
    manifest_extra: {suite: [case, ...]}: cases the judge must believe the
            kernel's table holds beside its real ones (the short-plan test).
    send_on: (regex, bytes): once the serial log matches regex, write the
            bytes to the guest's serial input (a boot that never prints it
            fails).
    interact: fn(machine, boot) -> [(case, ok, detail)]: a boot without
            test= (it ends at the shell prompt) driven through the serial
            console; it must power the machine off (QEMU status 0).
    gdb:    give QEMU a GDB stub on a free port (boot.gdb_port).
    firmware: "bios" (SeaBIOS) or "uefi" (OVMF; tests/harness/qemu.py says what a
            UEFI boot needs, and a boot without it fails with that message).
    log_check: fn(log) -> [problems], run on the finished boot's log.
    deterministic: a seed: QEMU in deterministic mode (tests/harness/qemu.py,
            docs/stress-testing.md) and deterministic=SEED for the kernel;
            the log's first line is det_header() (what a replay reads).
    lab:    boot lab NAME's image instead (a bug planted for a lab,
            docs/labs/NAME.patch), built beside the image under test
            (lab_iso()); a deterministic log's header names it.
    """

    def __init__(self, name, tests, smp=1, mem="512M", machine="q35", expect="pass",
                 must_contain=(), timeout=BOOT_TIMEOUT, extra_cmdline="", cases_failing=(),
                 qmp_check=None, qemu_kernel=False, alone=False, send_on=None, interact=None,
                 gdb=False, log_check=None, expect_problems=(), hang_after=None, halt_on=None,
                 manifest_extra=None, firmware="bios", icount=None, deterministic=None,
                 image=None, lab=None):
        self.name = name
        self.lab = lab
        self.image = image              # None: the image under test; "ubsan", "plain": --X-iso
        self.deterministic = deterministic
        self.icount = icount            # QEMU -icount (single-threaded TCG): guest time
        self.firmware = firmware
        self.tests = tests
        det = "deterministic=%d" % deterministic if deterministic is not None else ""
        self.cmdline = " ".join(x for x in ("test=" + tests if tests else "", TEST_ARGS,
                                            extra_cmdline, det) if x)
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
        self.expect_problems = expect_problems
        self.hang_after = hang_after
        self.halt_on = halt_on
        self.manifest_extra = manifest_extra or {}


DET_HEADER = "# baton deterministic run: "


def det_header(boot):
    """The first line of a deterministic boot's log: everything a replay
    needs besides the image, and which image if a lab's (tests/replay/torture_replay.py
    reads it back)."""
    h = {"seed": boot.deterministic, "smp": str(boot.smp), "mem": boot.mem,
         "machine": boot.machine, "cmdline": boot.cmdline}
    if boot.lab:
        h["lab"] = boot.lab
    return DET_HEADER + json.dumps(h, sort_keys=True)


def lab_iso(iso, name):
    """The image of lab NAME built beside iso (BUILD/baton.iso): make's
    LAB=NAME, and make test for every lab, build it in BUILD/lab-NAME/
    (scripts/lab_image.sh)."""
    build = os.path.dirname(iso)
    return os.path.join(build, "lab-" + name, build, "baton.iso")


def lab_make_args(lab):
    """What a make command needs to boot the same image: LAB=NAME, or nothing."""
    return "LAB=%s " % lab if lab else ""


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


# The CPU-hotplug torture's verdict (kernel/tools/torture_end.c prints exactly one).
TORTURE_PASS = r"\]\[cpu\d+\] torture: PASS\r?$"
TORTURE_VERDICT = r"\]\[cpu\d+\] torture: (PASS|FAIL\b[^\r\n]*)\r?$"
TORTURE_CYCLES = 500
# 500 cycles took 9-130 s at -smp 4 on a 2-core host, depending on its
# load (about 30 s beside the rest of `make test`). A hung operation is
# reported by the torture's watchdog after 30 s and the run ended 30 s
# later, so this only catches a kernel that stops altogether.
TORTURE_TIMEOUT = 480
TORTURE_MARGIN = 300    # make torture: beyond DURATION (boot, the end's checks)
TORTURE_QMP_SEED = 19
MATRIX_ALL_TIMEOUT = 3600   # test=all at -smp 64 under TCG: README.md has the figures


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


# Deterministic runs trace this many events per CPU (always: a replay must
# run the same instructions as the run it repeats).
TORTURE_DET_TRACE = 1024


def torture_boot(duration, interval, smp, seed, mem="512M", machine="q35", deterministic=False,
                 cycles=0, args="", name="torture", lab=None):
    """`make torture`: run for duration seconds, or cycles (when not 0);
    args: more kernel parameters; lab: a lab's image (make's LAB=).
    Deterministic: the seed is QEMU's and the kernel's deterministic=SEED
    (and the torture's through it); the time is guest time
    (docs/stress-testing.md)."""
    cmd = ["torture_cycles=%d" % cycles, "torture_interval_ms=%d" % interval]
    if not cycles:
        cmd.append("torture_duration_s=%d" % duration)
    if deterministic:
        cmd.append("torture_trace=%d" % TORTURE_DET_TRACE)
    else:
        cmd.append("torture_seed=%d" % seed)
    if args:
        cmd.append(args)
    # Deterministic runs go at a third of the speed of multi-threaded TCG
    # (docs/stress-testing.md): a time-bound one needs the margin three times.
    timeout = (duration * (3 if deterministic else 1) if not cycles else cycles // 10) + \
        TORTURE_MARGIN
    return Boot(name, "hotplug_torture", smp=smp, mem=mem, machine=machine,
                extra_cmdline=" ".join(cmd), timeout=timeout, must_contain=[TORTURE_PASS],
                log_check=check_torture_verdict, deterministic=seed if deterministic else None,
                lab=lab)


# What GRUB's EFI build complained of before baton's header took a
# framebuffer and scripts/grub.cfg kept the video mode (README.md, "UEFI").
GRUB_COMPLAINTS = re.compile(r"^.*(?:no console will be available to OS|no suitable video mode "
                             r"found).*$", re.M)


def check_uefi_boot(log):
    """A UEFI boot: GRUB said nothing of consoles or video modes (the
    must_contain of the boot checks the firmware and ACPI lines)."""
    return ["GRUB complained: %s" % x.strip() for x in GRUB_COMPLAINTS.findall(log)]


UEFI_MUST_CONTAIN = [r"\] firmware: UEFI \d+\.\d+, EDK II \(EFI system table at 0x[0-9a-f]+\)",
                     r"\] ACPI: ACPI 2\.0\+, \d+ valid tables via the XSDT: "]


SERIAL_RX_BYTES = 4096
SERIAL_RX_READY = r"# serial_rx: ready for %d bytes" % SERIAL_RX_BYTES


KERNEL_BOOTS = [
    Boot("smp1-pc-64M", "all", smp=1, mem="64M", machine="pc"),
    Boot("smp1-q35-64M", "all", smp=1, mem="64M", machine="q35"),
    Boot("smp2-pc-512M", "all", smp=2, mem="512M", machine="pc",
         must_contain=[r"\] firmware: BIOS \(the loader gave no EFI system table\)"]),
    Boot("smp4-pc-512M", "all", smp=4, mem="512M", machine="pc"),
    Boot("smp4-q35-512M", "all", smp=4, mem="512M", machine="q35", qmp_check=check_cpu_count),
    Boot("smp8-q35-512M", "all", smp=8, mem="512M", machine="q35"),
    # Under UEFI (OVMF, GRUB's EFI build): every suite, the firmware seen,
    # ACPI through the XSDT, and GRUB quiet. 45 s alone on 2 cores.
    Boot("uefi-smp4-q35", "all", smp=4, mem="512M", machine="q35", firmware="uefi",
         must_contain=UEFI_MUST_CONTAIN, log_check=check_uefi_boot),
    # Every suite at -smp 16 (test-matrix goes to 64): 100 s alone on 2 cores
    # sanitized, 140 s beside the other boots; 16 vCPU threads on a busy
    # host go much slower, hence its own deadline.
    Boot("smp16-pc-1G", "all", smp=16, mem="1G", machine="pc", timeout=600),
    Boot("smp2-maxcpus8-q35", "smp,hotplug", smp="2,maxcpus=8", mem="256M", machine="q35"),
    Boot("smp2-pc-8G", "all", smp=2, mem="8G", machine="pc"),
    # 100,000 cross-CPU wake-up round trips; alone, since each one waits for
    # the host to schedule a halted vCPU.
    Boot("wakeup-pingpong-smp2", "sched_pingpong", smp=2, mem="256M", machine="q35", alone=True),
    # Timers under -icount: guest time is counted in instructions, so the
    # host cannot stretch it, and how late a timer fires can be bounded
    # (ktest_timer_slack_us; the other boots check only "never early"). The
    # bound is the old tick's tenth: a timer due while its CPU dies waits
    # for the dying CPU's timer step (interrupts off until then), and under
    # -icount the CPU it moves to runs only when the dying one yields (one
    # vCPU at a time): about 0.5 ms in all (docs/scheduler.md, Timers).
    # A bound of guest time, so of instructions: the plain image's (the
    # sanitizers' checks make the dying steps three to five times longer;
    # the sanitized boots check "never early").
    Boot("timers-icount-smp2", "timer", smp=2, mem="256M", machine="q35",
         icount="shift=3,sleep=off", extra_cmdline="ktest_timer_slack_us=1000", image="plain"),
    Boot("smp4-q35-8G", "all", smp=4, mem="8G", machine="q35"),
    # CPU-hotplug torture (kernel/tools/torture.h): 500 offline/online cycles
    # under workqueue and timer load, invariants checked all along.
    Boot("hotplug-torture-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=%d torture_interval_ms=0" % TORTURE_CYCLES,
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS], log_check=check_torture_verdict),
    # Its variants, shorter: thread creation failing around hotplug calls,
    # a failing step (cancelled offlines, failed onlines), the unbound
    # workqueue's attributes changing; and on lab 2's image (the workqueue's
    # non-reentrancy guard off), the torture must see items run twice at once.
    Boot("hotplug-torture-fail-workers-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 torture_fail_workers=1",
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS,
                                                r"variants \( fail_workers\): \d+ cancelled offlines"
                                                r".* [1-9]\d* starved hand-overs \([1-9]\d* with "
                                                r"the trustees' pool full, [1-9]\d* items by rescuers\)"],
         log_check=check_torture_verdict),
    Boot("hotplug-torture-fail-steps-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 torture_fail_steps=1",
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS, r"variants \( fail_steps\): [1-9]\d* "
                                                r"cancelled offlines, [1-9]\d* failed onlines"],
         log_check=check_torture_verdict),
    # The walk: every other call fails on request at a step, each step that
    # may fail in turn, both ways (kernel/hotplug.h, cpuhp_fail_step()); of
    # the others, every other first stops at a level, each in turn
    # (cpuhp_target()), and goes on from there.
    Boot("hotplug-torture-walk-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 torture_walk_steps=1",
         timeout=TORTURE_TIMEOUT,
         must_contain=[TORTURE_PASS,
                       r"walk_steps: 7 steps x ways, [1-9]\d* calls failed up and [1-9]\d* down "
                       r"on request, each rolled back and checked: workqueue:bh up [1-9]\d*, "
                       r"cpu:bringup up [1-9]\d*, "
                       r"cpu:stop down [1-9]\d*, workqueue:online up [1-9]\d*, workqueue:online "
                       r"down [1-9]\d*, sched:active up [1-9]\d*, sched:active down [1-9]\d*",
                       r"walk_steps: stopped [1-9]\d* times coming down and [1-9]\d* going up, at "
                       r"each level in turn \(down/up\): workqueue:bh [1-9]\d*/[1-9]\d*, "
                       r"sched:dead [1-9]\d*/[1-9]\d*, cpu:stop "
                       r"[1-9]\d*/[1-9]\d*, workqueue:online [1-9]\d*/[1-9]\d*"],
         log_check=check_torture_verdict),
    Boot("hotplug-torture-attrs-smp4", "hotplug_torture", smp=4, mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0 torture_attrs=1",
         timeout=TORTURE_TIMEOUT, must_contain=[TORTURE_PASS, r"variants \( attrs\): .*, [1-9]\d* "
                                                r"attribute changes"],
         log_check=check_torture_verdict),
    Boot("hotplug-torture-no-reentrancy-guard", "hotplug_torture", expect="fail", smp=4,
         mem="512M", machine="q35",
         extra_cmdline="torture_cycles=100 torture_interval_ms=0", lab="no-reentrancy-guard",
         timeout=TORTURE_TIMEOUT,
         cases_failing=["hotplug_torture.cpus_go_offline_and_online_under_load"],
         must_contain=[r"torture: violation \d+: item \S+: \d+ executions at once",
                       r"\] torture: FAIL \(\d+ violations\)"]),
    # vCPU hot-plug from the host under the torture (tests/vm/torture_qmp.py,
    # `make torture-qmp`): 75 s of QMP device_add/device_del, a fixed seed,
    # in several boots (QEMU 7.2's unplug bugs: see HostTorture).
    Boot("torture-qmp-smp2-max6", "", smp="2,maxcpus=6", mem="256M", machine="q35",
         extra_cmdline="torture_seed=%d" % TORTURE_QMP_SEED, timeout=600,
         interact=lambda m, b: torture_qmp.interact(m, b, 75, TORTURE_QMP_SEED)),
    # The shell, driven through the serial console; a megabyte of random
    # input; the GDB helpers against a live machine; the trace converter.
    Boot("shell-session-smp4", "", smp=4, interact=shell_tests.interact_session),
    # (The megabyte takes 160 s on a quiet 2-core host, four times that on
    # a busy one: the guest reads its UART no faster, and QEMU takes bytes
    # from the socket only as the guest reads them. Every byte reaches the
    # shell, none is dropped, so its input is the same in every run: when
    # a full ring dropped bytes, the `help` after the flood was lost in one
    # run of ten and the case failed.)
    Boot("shell-fuzz-smp2", "", smp=2, mem="256M", interact=shell_tests.interact_fuzz,
         timeout=900),
    Boot("gdb-helpers-smp2", "", smp=2, mem="256M", gdb=True, interact=shell_tests.interact_gdb),
    Boot("trace-scenarios-smp2", "trace_scenarios", smp=2, mem="256M",
         log_check=shell_tests.check_trace_log),
    # The labs' checks (docs/labs.md).
    Boot("labs-smp4", "", smp=4, interact=shell_tests.interact_labs),
    # The hypervisor's vCPU hot-plug through QMP (tests/vm/vcpu_hotplug_tests.py).
    Boot("vcpu-hotplug-q35", "", smp="2,maxcpus=8", mem="256M", machine="q35",
         interact=vcpu_hotplug_tests.interact_q35),
    Boot("vcpu-hotplug-q35-uefi", "", smp="2,maxcpus=8", mem="256M", machine="q35",
         firmware="uefi", interact=vcpu_hotplug_tests.interact_q35),
    Boot("vcpu-hotplug-pc", "", smp="2,maxcpus=4", mem="256M", machine="pc",
         interact=vcpu_hotplug_tests.interact_pc),
    Boot("vcpu-hotplug-poll", "", smp="2,maxcpus=4", mem="256M", machine="q35",
         extra_cmdline="acpi_cpuhp=poll", interact=vcpu_hotplug_tests.interact_poll),
    Boot("lab5-hotplug-callback", "lab_hotplug_callback", smp=4),
    # The lock validator off: nothing validated, the flush fast paths still
    # refuse and report (every other boot runs with it on, the default).
    Boot("lockdep-off", "lockdep_off", smp=2, mem="256M", extra_cmdline="lockdep=0"),
    # Lab 7: the lab's two paths over two locks, in one order: no report.
    Boot("lab7-lockdep-fixed", "lab_lockdep", smp=2, mem="256M"),
    # Lab 8: every CPU counts into one counter with an atomic add: nothing
    # lost, no report.
    Boot("lab8-race-fixed", "lab_race", smp=2, mem="256M"),
    # COM1 input end to end: the host types a pattern, the interrupt fills
    # the ring, a BH work item hands the bytes to the test's consumer.
    Boot("serial-rx-smp2", "serial_rx", smp=2, mem="256M", machine="q35",
         send_on=(SERIAL_RX_READY, serial_rx_pattern(SERIAL_RX_BYTES))),
    # Bad parameters are reported and the boot goes on with the defaults.
    Boot("bad-cmdline", "params", smp=1, machine="pc",
         extra_cmdline="loglevel=banana nosuchparam=1 panic=sometimes loglevel=99 "
                       "delay_percent=20 cpuhp_fail=0,workqueue:dying",
         must_contain=[r"unknown parameter 'nosuchparam' ignored",
                       r"cpuhp_fail=0,workqueue:dying ignored: starting and dying steps run on "
                       r"the CPU itself with interrupts off",
                       r"bad value 'banana' for loglevel= \(malformed.*using default 7",
                       r"bad value 'sometimes' for panic= .*using earlier value exit",
                       r"bad value '99' for loglevel= \(out of range",
                       r"delay_points=, delay_percent= and delay_max_us= act only in "
                       r"deterministic mode \(deterministic=SEED\): ignored"],
         ),
    # A hotplug step failed from the command line (kernel/hotplug.h).
    Boot("cpuhp-fail-cmdline-smp4", "cpuhp_fail_cmdline", smp=4, machine="q35",
         extra_cmdline="cpuhp_fail=3,workqueue:online,down,EBUSY",
         must_contain=[r"cpuhp_fail: cpu3's next pass through workqueue:online fails \(-EBUSY\)",
                       r"cpu3: workqueue:online teardown fails on request \(-EBUSY\)"]),
    # Deterministic mode's own: an unknown delay point is named and skipped;
    # without QEMU's -icount the mode refuses to run, saying why.
    Boot("bad-cmdline-deterministic", "params", smp=1, machine="pc", deterministic=1,
         extra_cmdline="delay_points=work_start,bogus",
         must_contain=[r"delay_points: no delay point is called 'bogus' \(they are: all, none, "
                       r"work_start,worker_sleep,.*,timer_move\); skipped",
                       r"deterministic: on, seed 1; delay points work_start: 10% of passes"]),
    Boot("deterministic-without-icount", "params", smp=1, machine="pc", expect="panic",
         extra_cmdline="deterministic=5",
         must_contain=[r"Kernel panic - not syncing: deterministic mode: the TSC runs at \d+ Hz, "
                       r"not at the 1000000000 Hz of QEMU's -icount: boot with -icount"]),
    # The sanitizers (docs/sanitizers.md): each catches its planted bugs (a
    # racy counter; an out-of-bounds index, a shift and a signed overflow),
    # and every suite runs once more in the SAN=ubsan
    # image, the one whose UBSAN also checks bool loads (and must catch one).
    Boot("sanitizers-planted-smp2", "ubsan,kcsan", smp=2, mem="256M"),
    Boot("ubsan-bool-smp4", "all,ubsan_bool", smp=4, mem="512M", image="ubsan"),
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
    # kmalloc's debug reports; the test declares them (ktest_expect_bugs), so
    # they carry "(expected by a test)" and do not fail the boot.
    Boot("report-double-free", "kmalloc_debug",
         must_contain=[r"BUG( \(expected by a test\))?: kmalloc: double free of 0x[0-9a-f]+",
                       r"allocated at kmalloc_debug_double_free\+0x.*last freed at "
                       r"kmalloc_debug_double_free\+0x",
                       r"BUG( \(expected by a test\))?: kmalloc: out-of-bounds write .* write "
                       r"past the end",
                       r"BUG( \(expected by a test\))?: kmalloc: write after free"]),
]

def matrix_boots():
    """`make test-matrix`: every -smp from 1 to 64 on pc and q35 (the smp
    suite), some topologies, hot-pluggable CPUs left out at boot, and every
    suite (test=all) at -smp 16, 32 and 64 on both machines."""
    boots = []
    for machine in ("pc", "q35"):
        for n in range(1, 65):
            boots.append(Boot("matrix-%s-smp%d" % (machine, n), "smp", smp=n, mem="256M",
                              machine=machine, timeout=300))
        for smp in ("2,maxcpus=8", "12,sockets=2,cores=3,threads=2", "8,sockets=1,cores=4,threads=2",
                    "6,sockets=3,cores=2,threads=1", "64,sockets=4,cores=8,threads=2"):
            boots.append(Boot("matrix-%s-%s" % (machine, smp.replace(",", "-").replace("=", "")),
                              "smp", smp=smp, mem="256M", machine=machine, timeout=300))
        for n in (16, 32, 64):
            boots.append(Boot("matrix-all-%s-smp%d" % (machine, n), "all", smp=n, mem="1G",
                              machine=machine, timeout=MATRIX_ALL_TIMEOUT))
    return boots


# The harness must be able to fail: these kernels are broken on purpose.
# Each names the exact failure the judge must report (expect_problems).
HARNESS_BOOTS = [
    Boot("harness-detects-failure", "selftest_fail", expect="fail",
         cases_failing=["selftest_fail.fails_on_purpose"]),
    # On 4 CPUs, with panic=halt: the other three must be stopped by NMI
    # (halted, interrupts off, checked through QMP), none printing after it.
    Boot("harness-detects-panic", "selftest_panic", expect="panic", smp=4,
         extra_cmdline="panic=halt", halt_on=r"---\[ end Kernel panic \]---",
         must_contain=[r"Kernel panic - not syncing: deliberate panic from the selftest_panic suite"],
         expect_problems=[r"^panic: Kernel panic - not syncing: deliberate panic",
                          r"selftest_panic\.panics_on_purpose did not finish: the boot ended "
                          r"during it \(a panic\)"]),
    # The deadline is 10 s after the case started, however long the boot
    # took to get there; the NMI at the deadline shows where it hangs.
    Boot("harness-detects-hang", "selftest_hang", expect="timeout",
         hang_after=(r"# Subtest: selftest_hang", 10),
         must_contain=[r"NMI on cpu0: thread \S+ at hangs_on_purpose\+0x"],
         expect_problems=[r"^timeout after 10 s after /# Subtest: selftest_hang/",
                          r"selftest_hang\.hangs_on_purpose did not finish: the boot ended during "
                          r"it \(a timeout\)"]),
    Boot("harness-detects-unknown-suite", "no_such_suite", expect="fail",
         expect_problems=[r"^the kernel: .*ktest: no test suite named 'no_such_suite'",
                          r"test=no_such_suite: the kernel has no suite 'no_such_suite'"]),
    # The judge believes params has a fifth case: the kernel's plan of four
    # is short, and the case the kernel lost is named.
    Boot("harness-detects-short-plan", "params", expect="fail",
         manifest_extra={"params": ["a_case_the_kernel_lost"]},
         expect_problems=[r"suite params: plan 1\.\.4, but the kernel's table has 5 cases",
                          r"suite params: cases missing from the report: a_case_the_kernel_lost"]),
    # QEMU exits 0 (the shell's poweroff) with no test results at all.
    Boot("harness-detects-no-results", "", expect="fail", send_on=(r"baton> ", b"poweroff\r"),
         expect_problems=[r"no KTAP output", r"QEMU exit status 0, expected 33"]),
    # The kernel exits QEMU with the success status in the middle of a suite.
    Boot("harness-detects-exit-mid-run", "selftest_exit", expect="fail",
         expect_problems=[r"selftest_exit\.exits_mid_run did not finish: the boot ended during "
                          r"it \(QEMU exited with status 33\)",
                          r"never ran: selftest_exit\.never_reached"]),
    Boot("harness-detects-warning", "selftest_warn", expect="fail",
         cases_failing=["selftest_warn.warns_unexpectedly"],
         expect_problems=[r"the kernel printed a WARNING: .*\[cpu\d+\] WARNING: .*an undeclared "
                          r"warning from the selftest_warn suite"]),
    # A SKIP the kernel itself counts as no failure.
    Boot("harness-detects-skip", "selftest_skip", expect="fail",
         expect_problems=[r"selftest_skip\.skips_unexpectedly: unexpected SKIP \(skipped on "
                          r"purpose by the selftest_skip suite\)"]),
    # An error report nobody declared; the declared one beside it must pass.
    Boot("harness-detects-error-report", "selftest_bug", expect="fail",
         expect_problems=[r"the kernel reported an error: .*\[cpu\d+\] BUG: selftest: an "
                          r"error report from the selftest_bug suite$"],
         log_check=lambda log: ["the declared report was taken for an error"] if any(
             "declared" in x for x in BUG_LINE.findall(log)) else []),
    # A declared report is of one kind (its subsystem): a report of another
    # kind during the case, from another CPU's work item or from the case
    # itself, fails the boot like any other; a declared one that never came
    # fails its case; the declared one beside the other still passes.
    Boot("harness-detects-report-of-another-kind", "selftest_bug_kind", expect="fail", smp=2,
         mem="256M",
         cases_failing=["selftest_bug_kind.another_kind_instead_of_the_declared",
                        "selftest_bug_kind.another_kind_beside_the_declared"],
         must_contain=[r"\] BUG \(expected by a test\): selftest: the report the case declared"],
         expect_problems=[r"the kernel reported an error: .*\[cpu\d+\] BUG: unrelated: a report "
                          r"of another kind, from a work item, instead of the declared one$",
                          r"the kernel reported an error: .*\[cpu\d+\] BUG: unrelated: a second "
                          r"report, of another kind, from the case itself$"]),
    # WARNs are declared by their source file: one from another file during a
    # declaring case, or one more than declared, is a plain WARNING that fails
    # the boot, and the case fails; the declared one reads "(expected ...)".
    Boot("harness-detects-warn-of-another-file", "selftest_warn_kind", expect="fail", smp=2,
         mem="256M",
         cases_failing=["selftest_warn_kind.a_warn_from_another_file",
                        "selftest_warn_kind.the_declared_warn_beside_another"],
         must_contain=[r"WARNING \(expected by a test\): tests/kernel/test_selftest\.c:\d+ .*"
                       r"the warning the case declared"],
         expect_problems=[r"the kernel printed a WARNING: .*\] WARNING: tests/kernel/test_selftest\.c:"
                          r"\d+ .*a warning from a file the case did not declare$",
                          r"the kernel printed a WARNING: .*\] WARNING: tests/kernel/test_selftest\.c:"
                          r"\d+ .*a second warning, one more than declared$"]),
    # A lock-validator report nobody declared fails the boot.
    Boot("harness-detects-lockdep-report", "lockdep_undeclared", expect="fail", smp=2,
         mem="256M",
         expect_problems=[r"the kernel reported an error: .*\[cpu\d+\] BUG: lockdep: possible "
                          r"circular locking dependency: init takes 'undeclared_a' \(spinlock\)"]),
    # An interactive boot whose shell dies: QEMU exits under it, or it stops
    # answering. Either fails the boot at once, without trying the rest.
    Boot("harness-detects-dead-shell-exit", "", smp=2, mem="256M", expect="fail",
         interact=lambda m, b: shell_tests.interact_dies(m, b, "selftest_exit", 120),
         expect_problems=[r"^the shell died: QEMU exited \(status 33\) during 'test "
                          r"selftest_exit'; \d+ later commands not sent"]),
    Boot("harness-detects-dead-shell-hang", "", smp=2, mem="256M", expect="fail",
         interact=lambda m, b: shell_tests.interact_dies(m, b, "selftest_hang", 20),
         expect_problems=[r"^the shell died: no prompt within 20 s after 'test selftest_hang'; "
                          r"\d+ later commands not sent"]),
    # Serial input with one byte missing in the middle: the suite must see it.
    Boot("harness-detects-serial-loss", "serial_rx", expect="fail", smp=2, mem="256M",
         cases_failing=["serial_rx.host_bytes_arrive_in_order"],
         send_on=(SERIAL_RX_READY, serial_rx_pattern(SERIAL_RX_BYTES)[:1000] +
                  serial_rx_pattern(SERIAL_RX_BYTES)[1001:])),
    # And with nothing sent, it must give up (after its wait, made 5 s here) and fail.
    Boot("harness-detects-serial-silence", "serial_rx", expect="fail", smp=2, mem="256M",
         extra_cmdline="ktest_serial_rx_wait_s=5",
         cases_failing=["serial_rx.host_bytes_arrive_in_order"],
         must_contain=[r"timeout after 5 s: 0 of \d+ bytes arrived"]),
    # The CPU-hotplug torture must fail when an invariant breaks: a lost
    # queueing (its accounting), and a hung operation (its watchdog, which
    # reports after torture_stall_s, 30 s but 5 s here, and ends the stuck
    # run as long later).
    Boot("harness-detects-torture-loss", "hotplug_torture", expect="fail", smp=2, mem="256M",
         extra_cmdline="torture_cycles=30 torture_inject=lost",
         cases_failing=["hotplug_torture.cpus_go_offline_and_online_under_load"],
         must_contain=[r"torture: violation \d+: item plain/0: queued \d+ times, .*\(lost 1\)",
                       r"\] torture: FAIL \(\d+ violations\)"]),
    Boot("harness-detects-torture-hang", "hotplug_torture", expect="fail", smp=2, mem="256M",
         extra_cmdline="torture_cycles=100000 torture_inject=hang torture_stall_s=5",
         timeout=240, cases_failing=["hotplug_torture.cpus_go_offline_and_online_under_load"],
         must_contain=[r"torture/onoff: injected hang\(0\) has not returned after \d+ s",
                       r"\] torture: FAIL \(\d+ violations\)"]),
    # The data-race detector sampling 250 times too rarely (the parameter's
    # largest value, far under KCSAN_FLOOR_PER_MILLION, kernel/debug/kcsan.h): the
    # torture must fail, saying so, and the end of the boot must report it.
    Boot("harness-detects-dead-detector", "hotplug_torture", expect="fail", smp=2, mem="256M",
         extra_cmdline="torture_cycles=30 kcsan_skip_watch=1000000",
         cases_failing=["hotplug_torture.cpus_go_offline_and_online_under_load"],
         must_contain=[r"torture: violation \d+: the data-race detector was not sampling: "
                       r"\d+ watchpoints in \d+ plain accesses",
                       r"\] torture: FAIL \(\d+ violations\)"],
         expect_problems=[r"the kernel reported an error: .*\[cpu\d+\] BUG: kcsan: the "
                          r"data-race detector was not sampling: \d+ watchpoints in \d+ plain "
                          r"accesses \(\d+ per million\), under its floor of \d+ per million$"]),
    # Lab 2: with the non-reentrancy guard off (its lab's image), the test
    # must catch it.
    Boot("lab2-no-reentrancy-guard", "workqueue", expect="fail", smp=2, mem="256M",
         lab="no-reentrancy-guard",
         cases_failing=["workqueue.non_reentrant_under_contention"]),
    # Lab 7: with the table path's locks in the wrong order, the validator
    # must report the cycle on the first run of each path (which never overlap).
    Boot("lab7-lockdep-broken", "lab_lockdep", expect="fail", smp=2, mem="256M",
         extra_cmdline="lockdep_lab_abba=1",
         cases_failing=["lab_lockdep.lab7_paths_in_one_order"],
         expect_problems=[r"BUG: lockdep: possible circular locking dependency"]),
    # Lab 8: with the plain increment, the detector must name it on the
    # first run (the sanitized image: make test boots it). In deterministic
    # mode: under multi-threaded TCG whether a sampled access meets the
    # other CPU's is the host's choice (a loaded host may run the two vCPUs
    # by turns: 11,974 events lost, no report, in one make test of ten).
    # One vCPU at a time in guest time, the run is the same every
    # time, and the watchpoints hand the turn over (docs/sanitizers.md):
    # seeds 1 to 12 all report it.
    Boot("lab8-race-broken", "lab_race", expect="fail", smp=2, mem="256M", deterministic=8,
         extra_cmdline="kcsan_lab_racy=1",
         cases_failing=["lab_race.lab8_every_event_counted_no_race"],
         expect_problems=[r"BUG: kcsan: data-race in lab_count_event\+0x[0-9a-f]+/0x[0-9a-f]+ / "
                          r"lab_count_event\+0x"]),
    # Not a harness test, but the same shape: a wrong loader must be refused
    # with a message, and then the kernel halts for good (checked through
    # QMP once the message is out, however long the boot took).
    Boot("wrong-loader-refused", "", expect="halt", qemu_kernel=True,
         halt_on=r"baton: started by a Multiboot \(version 1\) loader"),
]


# Lines the kernel prints that fail any boot, quoted: an unexpected WARN, and
# an error report in the agreed form ("[cpuN] BUG: subsystem: message"). The
# forms a test declared, "WARNING (expected by a test):" and "BUG (expected
# by a test):", do not match.
WARNING_LINE = re.compile(r"^.*\[cpu\d+\] WARNING: .*$", re.M)
BUG_LINE = re.compile(r"^.*\[cpu\d+\] BUG: .*$", re.M)
# The UART could not send for 5 s and dropped output (drivers/uart16550.c): the
# log is incomplete, whatever it says.
OUTPUT_LOST_LINE = re.compile(r"^.*\[uart: \d+ bytes of output dropped.*$", re.M)
UNKNOWN_SUITE_LINE = re.compile(r"^.*ktest: no test suite named '.*$", re.M)
REPORTS_QUOTED = 5      # of each kind; the rest are counted

# When a case may SKIP: the reason it prints, exactly, and the configurations
# that explain it, as fn(possible CPUs, present CPUs). Any other SKIP fails.
SKIP_RULES = [
    ("every possible CPU is online (boot with maxcpus above -smp)",
     lambda possible, present: possible == present),
]
# A case the machine is too small for: ktest_need_cpus() (tests/kernel/
# ktest_helpers.c) prints exactly this, explained when fewer are present.
SKIP_NEEDS = re.compile(r"needs at least (\d+) CPUs")


def skip_allowed(boot, reason):
    possible, present = cpu_counts(boot.smp)
    for text, when in SKIP_RULES:
        if reason == text:
            return when(possible, present)
    m = SKIP_NEEDS.fullmatch(reason)
    return bool(m) and present < int(m.group(1))


def kernel_reports(log):
    """Problems for the WARNING and BUG lines in log, each quoted."""
    problems = []
    for rx, what in ((WARNING_LINE, "the kernel printed a WARNING"),
                     (BUG_LINE, "the kernel reported an error"),
                     (OUTPUT_LOST_LINE, "serial output was lost")):
        lines = [x.strip() for x in rx.findall(log)]
        problems += ["%s: %s" % (what, x) for x in lines[:REPORTS_QUOTED]]
        if len(lines) > REPORTS_QUOTED:
            problems.append("%s: %d more such lines" % (what, len(lines) - REPORTS_QUOTED))
    return problems


def load_manifest(build):
    """BUILD/ktest-manifest.json (scripts/ktest_manifest.py), or None."""
    try:
        with open(os.path.join(build, "ktest-manifest.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def check_manifest(rep, boot, manifest, ended):
    """What the kernel's table says test=boot.tests must report, against rep.
    ended: None if the kernel finished its run, else how the boot ended early."""
    problems, never = [], []
    names = [n for n in boot.tests.split(",") if n]
    table = [dict(s, cases=s["cases"] + boot.manifest_extra.get(s["name"], []))
             for s in manifest["suites"]]
    known = {s["name"] for s in table}
    for n in names:
        if n != "all" and n not in known:
            problems.append("test=%s: the kernel has no suite '%s'" % (boot.tests, n))
    want = [s for s in table if s["name"] in names or ("all" in names and not s["explicit"])]
    wanted = {s["name"] for s in want}
    got = {}
    for s in rep.suites:
        if s.name not in wanted:
            problems.append("suite %s ran, but test=%s does not select it" % (s.name, boot.tests))
        got.setdefault(s.name, s)
    last = rep.suites[-1] if rep.suites else None
    for w in want:
        s = got.get(w["name"])
        if s is None:
            if ended:
                never.append("%s (all %d cases)" % (w["name"], len(w["cases"])))
            else:
                problems.append("suite %s is missing from the report (the kernel's table has it, "
                                "%d cases)" % (w["name"], len(w["cases"])))
            continue
        if s.plan is not None and s.plan != len(w["cases"]):
            problems.append("suite %s: plan 1..%d, but the kernel's table has %d cases" % (
                s.name, s.plan, len(w["cases"])))
        ran = [c.name for c in s.cases]
        for c in s.cases:
            if c.name not in w["cases"]:
                problems.append("suite %s: case %s is not in the kernel's table" % (s.name, c.name))
            elif c.status == "skip" and not skip_allowed(boot, c.reason):
                problems.append("%s.%s: unexpected SKIP (%s) at -smp %s" % (
                    s.name, c.name, c.reason, boot.smp))
        missing = [c for c in w["cases"] if c not in ran]
        if not missing:
            continue
        if ended and s is last and missing == w["cases"][len(ran):]:
            problems.append("%s.%s did not finish: the boot ended during it (%s)" % (
                s.name, missing[0], ended))
            never += ["%s.%s" % (s.name, c) for c in missing[1:]]
        else:
            problems.append("suite %s: cases missing from the report: %s" % (
                s.name, ", ".join(missing)))
    if never:
        problems.append("never ran: %s" % ", ".join(never))
    return problems


def judge(log, status, how, boot, interactions=None, manifest=None, limit=None):
    """Return (cases, problems): cases is [(name, "pass"|"fail"|"skip")].
    how: "exit" (QEMU exited, with status), "timeout" (killed at the
    deadline) or "halted" (stopped after halt_on, all CPUs halted).
    limit: what the deadline was, for the timeout's message."""
    timed_out = how == "timeout"
    panic_at = log.find(PANIC_TEXT)
    problems = []
    if panic_at >= 0:
        problems.append("panic: %s" % log[panic_at:].split("\n")[0].strip())
        # panic() stops the other CPUs: nobody else may print after it.
        head = log[:panic_at].rsplit("\n", 1)[-1]
        me = re.search(r"\[cpu(\d+)\]", head)
        others = set(re.findall(r"\[cpu(\d+)\]", log[panic_at:])) - {me and me.group(1)}
        if me and others:
            problems.append("after the panic, CPUs %s still printed" % ", ".join(sorted(others)))
    problems += kernel_reports(log)
    if timed_out:
        problems.append("timeout after %s%s" % (
            limit or "%d s" % boot.timeout,
            " (the session did not power off)" if boot.interact else ""))
    for rx in boot.must_contain:
        if not re.search(rx, log, re.M):
            problems.append("log lacks /%s/" % rx)
    if boot.interact:
        # Driven through the shell: the cases are the interaction's; no KTAP.
        interactions = interactions or [("interaction", False,
                                         "did not finish before the boot's deadline")]
        cases = [(name, "pass" if ok else "fail") for name, ok, _ in interactions]
        problems += ["%s: %s" % (name, detail) for name, ok, detail in interactions if not ok]
        if how == "exit" and status != 0:
            if qemu.unplug_abort_at_exit(log, status):
                print("NOTE  %s: QEMU died at exit (status %s) after the guest powered down: "
                      "QEMU 7.2's heap corruption after a vCPU unplug (docs/vcpu-hotplug.md)" % (
                          boot.name, status), flush=True)
            else:
                problems.append("QEMU exit status %s after poweroff, expected 0" % status)
        return cases, problems
    if boot.expect == "halt":
        return [], problems
    problems += ["the kernel: %s" % x.strip() for x in UNKNOWN_SUITE_LINE.findall(log)]
    rep = ktap.parse(log)
    cases = [("%s.%s" % (s.name, c.name), c.status) for s, c in rep.cases()]
    problems += rep.problems
    if boot.log_check and not timed_out:
        problems += boot.log_check(log)
    if panic_at < 0 and how == "exit":
        want = qemu.EXIT_FAILURE if any(st == "fail" for _, st in cases) else qemu.EXIT_SUCCESS
        if status != want:
            problems.append("QEMU exit status %s, expected %d%s" % (
                status, want, " (crash or triple fault?)" if status in (0, 1) else ""))
    if rep.found:
        if manifest is None:
            problems.append("no ktest-manifest.json: cannot tell which suites must run")
        else:
            ended = ("a timeout" if timed_out else "a panic" if panic_at >= 0 else
                     None if "# baton-tests:" in log else "QEMU exited with status %s" % status)
            problems += check_manifest(rep, boot, manifest, ended)
    if boot.expect == "pass" and set(boot.tests.split(",")) & {"all", "smp"}:
        # Every CPU QEMU gave us must be counted, and every present one online.
        possible, present = cpu_counts(boot.smp)
        summary = "smp: %d CPUs possible, %d present, %d online" % (possible, present, present)
        if summary not in log:
            problems.append("log lacks the line '%s'" % summary)
    return cases, problems


def send_when_ready(m, boot, problems):
    """Wait for boot.send_on's regex in the serial log, then send its bytes."""
    regex, data = boot.send_on
    if not m.expect(regex, boot.timeout):
        problems.append("the log never matched /%s/: no serial input sent" % regex)
        return
    try:
        m.send(data)
    except qemu.QemuError as e:
        problems.append("sending %d bytes to the serial port: %s" % (len(data), e))


def check_halted(m):
    """Poll QEMU until every CPU is halted with interrupts off (a CPU that
    halts for good); [] then, else the problem at the deadline."""
    while True:
        try:
            regs = m.hmp("info registers -a")
        except (qemu.QemuError, OSError) as e:
            return ["QMP 'info registers -a' failed: %s" % e]
        cpus = re.findall(r"^CPU#(\d+)\n(.*?)(?=^CPU#|\Z)", regs.replace("\r", ""), re.M | re.S)
        running = []
        for cpu, block in cpus:
            efl = re.search(r"[ER]FL=([0-9a-f]+)", block)     # 32- or 64-bit mode
            hlt = re.search(r"HLT=(\d)", block)
            if not efl or not hlt or hlt.group(1) != "1" or int(efl.group(1), 16) & 0x200:
                running.append("cpu%s (HLT=%s, FLAGS=%s)" % (cpu, hlt and hlt.group(1),
                                                           efl and efl.group(1)))
        if cpus and not running:
            return []
        if time.time() >= m.deadline:
            return ["not every CPU halted with interrupts off: %s" % (
                ", ".join(running) or "QEMU listed no CPUs")]
        time.sleep(0.2)


def _interact(m, boot, out):
    try:
        out.append(boot.interact(m, boot))
    except qemu.QemuError as e:
        out.append([("interaction", False, str(e))])
    except Exception as e:  # a bug in the interaction: fail the boot, keep going
        out.append([("interaction", False, "raised %s: %s" % (type(e).__name__, e))])


def run_boot(boot, iso, logdir, manifest=None, stop=None):
    """Boot boot on iso, its serial log in logdir, and judge it: (cases,
    problems, log path, seconds). stop: a threading.Event that, once set,
    ends the boot early (QEMU is killed; its verdict is the caller's to
    discard)."""
    kernel = os.path.join(os.path.dirname(iso), "baton.elf") if boot.qemu_kernel else None
    boot.iso = iso
    qemu_extra = []
    if boot.gdb:
        boot.gdb_port = shell_tests.free_port()
        qemu_extra = ["-gdb", "tcp:127.0.0.1:%d" % boot.gdb_port]
    if boot.icount:
        qemu_extra += ["-icount", boot.icount]
    det = {}
    if boot.deterministic is not None:
        qemu_extra += qemu.deterministic_extra(boot.deterministic)
        det = dict(accel=qemu.DETERMINISTIC_ACCEL, serial_file=True, header=det_header(boot))
    m = qemu.Machine(iso, name=boot.name, smp=boot.smp, mem=boot.mem, machine=boot.machine,
                     cmdline=boot.cmdline, workdir=logdir, qmp=True, kernel=kernel, extra=qemu_extra,
                     firmware=boot.firmware, **det)
    t0 = time.time()
    # One deadline bounds everything: the interaction, serial input, the wait.
    m.deadline = t0 + boot.timeout
    extra, out, threads = [], [], []
    how = None
    try:
        if boot.lab and not os.path.exists(iso):
            raise qemu.QemuError("no image %s (lab %s's: make test builds the labs' images, "
                                 "make run LAB=%s this one)" % (iso, boot.lab, boot.lab))
        m.start()
    except qemu.QemuError as e:
        extra.append(str(e))
        how = "error"
    if how is None:
        if boot.interact:
            threads.append(threading.Thread(target=_interact, args=(m, boot, out), daemon=True))
        if boot.send_on:
            # In a thread: a guest that stops reading must not stop the clock.
            threads.append(threading.Thread(target=send_when_ready, args=(m, boot, extra),
                                            daemon=True))
        for th in threads:
            th.start()
        if boot.qmp_check:
            try:
                extra += boot.qmp_check(m, boot)
            except (qemu.QemuError, OSError) as e:
                extra.append("QMP check: %s" % e)
        hang_armed = None
        while how is None:
            if m.proc.poll() is not None:
                how = "exit"
            elif boot.halt_on and m.expect(boot.halt_on, 0):
                extra += check_halted(m)
                how = "halted"
            elif time.time() >= m.deadline:
                how = "timeout"
            elif stop is not None and stop.is_set():
                how = "stopped"
            elif boot.interact and not threads[0].is_alive() and getattr(m, "shell_dead", None):
                how = "shell died"      # stopped below, without waiting for the deadline
            else:
                if boot.hang_after and not hang_armed and m.expect(boot.hang_after[0], 0):
                    m.deadline = min(m.deadline, time.time() + boot.hang_after[1])
                    hang_armed = "%d s after /%s/" % (boot.hang_after[1], boot.hang_after[0])
                time.sleep(0.2)
    status = m.wait(5 if how in ("exit", "error", "shell died") else 0,
                    nmi_on_timeout=how in ("timeout", "shell died"))
    if how == "shell died" and status is not None:
        how = "exit"
    for th in threads:
        # QEMU is gone: serial input fails and waits for output end at once.
        th.join(15)
        if th.is_alive():
            extra.append("a harness thread (%s) did not end after QEMU stopped" % (
                "interaction" if boot.interact and th is threads[0] else "serial input"))
    if getattr(m, "shell_dead", None):
        extra.append("the shell died: %s%s" % (m.shell_dead, "; %d later commands not sent" % (
            m.shell_skipped) if m.shell_skipped else ""))
    cases, problems = judge(m.output, status, how, boot, out[0] if out else None, manifest,
                            hang_armed if how == "timeout" else None)
    return cases, problems + extra, m.log_path, time.time() - t0


class Tally:
    """The passes and failures of a run; each failure is printed as it comes
    and kept in failures as (what, log): what failed ("boot: suite.case", or
    the boot and its problem) and the serial log that shows it, if any."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.failures = []

    def add(self, ok, line, what=None, log=None):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append((what or line, log))
            print("FAIL  " + line, flush=True)


def report_boot(t, boot, cases, problems, log, secs):
    if boot.expect == "pass":
        for name, st in cases:
            if st == "fail":
                t.add(False, "%s: %s" % (boot.name, name), log=log)
            elif st == "pass":
                t.passed += 1
        for p in problems:
            t.add(False, "%s: %s (log: %s)" % (boot.name, p, log), "%s: %s" % (boot.name, p), log)
        n = sum(1 for _, st in cases if st == "pass")
        print("boot  %-28s %3d passed, %d skipped  (%.0f s)%s" % (
            boot.name, n, sum(1 for _, st in cases if st == "skip"), secs,
            "" if not problems and all(st != "fail" for _, st in cases) else "  <- FAILED"),
            flush=True)
        return
    # A harness test: the judge must have called it a failure, for the right
    # reason (expect), and the exact one (expect_problems).
    failing = [name for name, st in cases if st == "fail"]
    if boot.expect == "fail":
        ok = bool(failing or problems) and not any(p.startswith(("panic", "timeout")) for p in problems)
        ok = ok and all(n in failing for n in boot.cases_failing)
    elif boot.expect == "panic":
        # panic() stops the other CPUs: none may print or run on after it.
        ok = any(p.startswith("panic") for p in problems) and not any(
            p.startswith(("after the panic", "not every CPU halted")) for p in problems)
    elif boot.expect == "halt":
        ok = not problems
    else:
        ok = any(p.startswith("timeout") for p in problems)
    unmatched = [rx for rx in boot.expect_problems
                 if not any(re.search(rx, p) for p in problems)]
    missing = [p for p in problems if p.startswith("log lacks")]
    ok = ok and not missing and not unmatched
    t.add(ok, "%s: the harness did not report the expected %s%s (problems: %s; failing: %s; log: %s)"
          % (boot.name, boot.expect, " (no problem matched %s)" % ", ".join(
              "/%s/" % rx for rx in unmatched) if unmatched else "", problems, failing, log),
          "%s: the harness did not report the expected %s" % (boot.name, boot.expect), log)
    print("harness %-26s %s  (%.0f s)" % (boot.name, "ok" if ok else "NOT DETECTED", secs),
          flush=True)


# Deterministic mode in make test (docs/stress-testing.md): a short torture
# twice with one seed, whose logs must be the same byte for byte; and a seed
# search for the planted race (the late-last-pool lab's image,
# docs/labs/late-last-pool.patch), then a replay of the failing seed, which
# must fail the same way at the same guest time with the same log, and
# whose trace must convert.
DET_REPEAT_SEED = 7
DET_REPEAT_CYCLES = 200
DET_RACE_LAB = "late-last-pool"
DET_RACE_SEEDS = range(1, 13)


def first_line_difference(a, b):
    """The first line where two logs differ (numbered from 1), both versions."""
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else b"(end of log)"
        y = lb[i] if i < len(lb) else b"(end of log)"
        if x != y:
            return i + 1, x.decode("utf-8", "replace"), y.decode("utf-8", "replace")
    return None


def run_det_checks(iso, logdir, manifest):
    """[(name, ok, detail)]: the deterministic-mode checks."""
    from replay import torture_replay as tr  # it imports this module
    tr.ISO[0] = iso
    results = []

    def read(path):
        with open(path, "rb") as f:
            return f.read()

    # 1. The same run twice.
    logs, problems = [], []
    for tag in "ab":
        boot = torture_boot(0, 0, "4", DET_REPEAT_SEED, "512M", "q35", True, DET_REPEAT_CYCLES,
                            name="det-repeat-" + tag)
        cases, probs, log, _ = run_boot(boot, iso, logdir, manifest)
        problems += ["run %s: %s (log %s)" % (tag, p, log) for p in probs]
        problems += ["run %s: case %s failed (log %s)" % (tag, n, log)
                     for n, st in cases if st == "fail"]
        logs.append(log)
    a, b = read(logs[0]), read(logs[1])
    diff = first_line_difference(a, b)
    if diff:
        problems.append("the two logs differ from line %d: %r against %r (%s, %s)" % (
            diff[0], diff[1], diff[2], logs[0], logs[1]))
    results.append(("det-repeat: seed %d, %d cycles at -smp 4, twice" % (
        DET_REPEAT_SEED, DET_REPEAT_CYCLES), not problems,
        "; ".join(problems) or "%d bytes the same" % len(a)))

    # 2. Search, replay, trace.
    found = None
    tried = 0
    for seed in DET_RACE_SEEDS:
        tried += 1
        c = tr.Config.from_boot(torture_boot(0, 0, "4", seed, "512M", "q35", True, 300,
                                             lab=DET_RACE_LAB))
        f, log, _, _, _ = tr.run(c, "det-race-search", logdir, manifest)
        if f:
            found = (c, f, read(log))
            break
    if not found:
        results.append(("det-race: a seed search finds the planted race", False,
                        "no failure in seeds %d..%d on lab %s's image" % (
                            DET_RACE_SEEDS[0], DET_RACE_SEEDS[-1], DET_RACE_LAB)))
        return results
    c, f, orig = found
    results.append(("det-race: a seed search finds the planted race", True,
                    "seed %d after %d: %s" % (c.seed, tried, f["message"])))
    f2, log2, _, _, _ = tr.run(c, "det-race-replay", logdir, manifest)
    again = read(log2)
    problems = []
    if again != orig:
        diff = first_line_difference(orig, again)
        problems.append("the replay's log differs from line %d: %r against %r (%s)" % (
            diff[0], diff[1], diff[2], log2))
    if not f2 or (f2["time"], f2["message"]) != (f["time"], f["message"]):
        problems.append("the replay did not fail as the run did (%s at %s s): %s" % (
            f["message"], f["time"], "%s at %s s" % (f2["message"], f2["time"]) if f2 else
            "no violation"))
    paths = tr.write_trace(log2, os.path.join(logdir, "det-race-replay.trace"))
    if not paths:
        problems.append("the replay's log holds no trace that converts (%s)" % log2)
    else:
        with open(paths[0]) as fh:
            if not json.load(fh).get("traceEvents"):
                problems.append("the replay's trace is empty (%s)" % paths[0])
    results.append(("det-race: the replay fails the same way at the same guest time",
                    not problems, "; ".join(problems) or "%s s: %s" % (f["time"], f["message"])))
    return results


def report_det(t, results):
    for name, ok, detail in results:
        t.add(ok, "%s: %s" % (name, detail), name)
        print("det   %-60s %s" % (name, "ok" if ok else "FAILED"), flush=True)
        if ok:
            print("      %s" % detail, flush=True)


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
    # sources keep the house style (.clang-format); each field legend name
    # is defined where it is used, and the shared ones are the guide's;
    # the unit tests of this judge and of tests/harness/ktap.py on made-up
    # logs (tests/harness/test_ktap.py); and
    # the trace pictures' labels apart (tests/checks/test_trace2json.py).
    for folder, name in (("checks", "check_deferred"), ("checks", "check_shell_commands"),
                         ("checks", "check_format"), ("checks", "check_legends"),
                         ("harness", "test_ktap"),
                         ("checks", "test_trace2json")):
        run_check(t, folder, name)


def run_check(t, folder, name):
    """Run tests/FOLDER/NAME.py. Each "ok N ..." / "not ok N ..." line it
    prints is one case (named by NAME); the "    # ..." lines after a result
    explain that result."""
    chk = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", folder, name + ".py")
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
    if a.deterministic and not a.seed:
        a.seed = int.from_bytes(os.urandom(3), "little") + 1
    boot = torture_boot(a.duration, a.interval, a.smp, a.seed, a.mem, a.machine,
                        a.deterministic, a.cycles, a.args, lab=a.lab)
    log = os.path.join(logdir, boot.name + ".log")
    if os.path.exists(log):
        os.unlink(log)
    print("torture: %s at -smp %s, interval %d ms, seed %d%s; serial log %s (timeout %d s)" % (
        "%d cycles" % a.cycles if a.cycles else "%d s" % a.duration, a.smp, a.interval, a.seed,
        ", deterministic" if a.deterministic else "", log, boot.timeout), flush=True)
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
    result = run_boot(boot, image_of(a, boot), logdir, load_manifest(a.build))
    done.set()
    follower.join()
    t = Tally()
    report_boot(t, boot, *result)
    if t.failed and a.deterministic:
        kept = os.path.join(logdir, "torture-seed%d.log" % a.seed)
        shutil.copyfile(log, kept)
        print("replay it exactly: make torture-replay %sLOG=%s" % (lab_make_args(a.lab), kept))
        print("or make it smaller: make torture-shrink %sLOG=%s" % (lab_make_args(a.lab), kept))
    elif t.failed:
        print("an ordinary run does not repeat (its interleaving is the host's); look for the "
              "failure with make torture DETERMINISTIC=1, which replays "
              "(docs/stress-testing.md)")
    print("%d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)


def run_one(a, logdir):
    """`make test-boot`: one boot of the suites in --tests, with --args;
    deterministic with --deterministic 1 (the seed: --seed, or one drawn).
    With --times N or --load 1, that boot N times as make test-repeat runs
    its boots (run_repeat)."""
    if a.deterministic and not a.seed:
        a.seed = int.from_bytes(os.urandom(3), "little") + 1
    boot = Boot("test-boot", a.tests, smp=a.smp, mem=a.mem, machine=a.machine,
                extra_cmdline=a.args, deterministic=a.seed if a.deterministic else None,
                lab=a.lab)
    repeat = a.times > 1 or a.load
    print("test-boot: test=%s at -smp %s%s; serial log %s" % (
        a.tests, a.smp, ", deterministic, seed %d" % a.seed if a.deterministic else "",
        os.path.join(logdir, *(["repeat", "run-NN"] if repeat else []), boot.name + ".log")),
        flush=True)
    if repeat:
        run_repeat(a, [boot], False, logdir)
    t = Tally()
    report_boot(t, boot, *run_boot(boot, image_of(a, boot), logdir, load_manifest(a.build)))
    print("%d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)


def image_of(a, boot):
    """The image a boot runs: the one under test, the one it asks for, or
    its lab's, built beside the one under test."""
    if boot.lab:
        return lab_iso(a.iso, boot.lab)
    if boot.image:
        return getattr(a, boot.image + "_iso") or a.iso
    return a.iso


def manifest_missing(t, build):
    t.add(False, "%s/ktest-manifest.json is missing or unreadable (make builds it): the "
                 "KTAP boots cannot be checked against the kernel's suite table" % build)


def select_boots(what, only):
    """(boots, det): the boots of `what` (all, kernel, harness, matrix; host:
    none), only those whose name contains one of only's comma-separated
    words if it is given; det: whether the deterministic-mode checks run
    beside them (`make test` and `kernel`, or -k det)."""
    boots = []
    if what in ("all", "kernel"):
        boots += KERNEL_BOOTS
    if what in ("all", "harness"):
        boots += HARNESS_BOOTS
    if what == "matrix":
        boots += matrix_boots()
    if only:
        boots = [b for b in boots if any(k in b.name for k in only.split(","))]
    return boots, what in ("all", "kernel") and (not only or "det" in only.split(","))


# Virtual CPUs the boots under way may have between them (the deterministic
# checks count as one: -icount runs one vCPU at a time). A vCPU preempted by
# the host while it holds a lock keeps every vCPU that waits for it
# spinning: -smp 8 and -smp 16 at once on two host cores took the -smp 8
# boot from 54 s to 109 s. A boot over the budget on its own still runs,
# alone.
VCPU_BUDGET = 20


class VcpuBudget:
    """Hands out the jobs (boots, and the deterministic checks as one vCPU),
    in the list's order, as the vCPUs under way allow: the first one pending
    that fits, or any one when nothing runs."""

    def __init__(self, jobs):
        self.pending = list(jobs)     # [(vcpus, fn, future)]
        self.running = 0
        self.cond = threading.Condition()

    def take(self):
        with self.cond:
            while self.pending:
                for job in self.pending:
                    if self.running == 0 or self.running + job[0] <= VCPU_BUDGET:
                        self.pending.remove(job)
                        self.running += job[0]
                        return job
                self.cond.wait()
            return None

    def give_back(self, job):
        with self.cond:
            self.running -= job[0]
            self.cond.notify_all()

    def work(self):
        """A worker thread: run jobs until none is left."""
        while True:
            job = self.take()
            if job is None:
                return
            _, fn, future = job
            try:
                future.set_result(fn())
            except BaseException as e:  # the main thread re-raises it
                future.set_exception(e)
            finally:
                self.give_back(job)


def run_boots(t, a, boots, det, logdir, manifest):
    """Boot each of boots on its image, a.jobs at a time within VCPU_BUDGET,
    and the `alone` ones after the rest, one by one; with det, the
    deterministic-mode checks beside them. Each is reported into t, in the
    list's order, as soon as it and those before it have ended."""
    jobs, futures = [], []
    det_checks = None
    if det:
        det_checks = concurrent.futures.Future()
        jobs.append((1, lambda: run_det_checks(a.iso, logdir, manifest), det_checks))
    for b in boots:
        if not b.alone:
            f = concurrent.futures.Future()
            jobs.append((cpu_counts(b.smp)[1],
                         lambda b=b: run_boot(b, image_of(a, b), logdir, manifest), f))
            futures.append((b, f))
    budget = VcpuBudget(jobs)
    workers = [threading.Thread(target=budget.work, daemon=True)
               for _ in range(max(1, a.jobs))]
    for w in workers:
        w.start()
    try:
        for b, f in futures:
            report_boot(t, b, *f.result())
        if det_checks:
            report_det(t, det_checks.result())
    except KeyboardInterrupt:
        # Nothing more starts; the boots under way end (each has its
        # deadline), so that no QEMU is left behind.
        with budget.cond:
            budget.pending.clear()
        for w in workers:
            w.join()
        raise
    for w in workers:
        w.join()
    for b in boots:
        if b.alone:
            report_boot(t, b, *run_boot(b, image_of(a, b), logdir, manifest))


# make test-repeat LOAD=1: make torture's boot beside the runs, this long
# each time (a verdict every ten minutes or so; the one still running when
# the runs end is stopped), booted again each time it ends.
LOAD_TORTURE_DURATION = 600
LOAD_TORTURE_SMP = "4"
LOAD_RESTART_PAUSE = 5      # seconds: a torture that cannot boot is not retried in a spin
TORTURE_VIOLATION = re.compile(r"\] torture: violation \d+: ", re.M)


class TortureLoad:
    """The CPU-hotplug torture (make torture's boot: -smp 4, the plain image,
    a seed from the clock) in its own QEMU beside the runs, booted again
    whenever it ends, until stop(): the tests as they fare beside other
    work. Its logs go to logdir (torture-NN.log); its verdicts are printed
    as they come and kept in verdicts, out of the runs' tally."""

    def __init__(self, iso, logdir, manifest):
        self.iso, self.logdir, self.manifest = iso, logdir, manifest
        self.done = threading.Event()
        self.verdicts = []      # [(boot name, verdict, seconds, log)]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.is_set():
            boot = torture_boot(LOAD_TORTURE_DURATION, 0, LOAD_TORTURE_SMP, 0,
                                name="torture-%02d" % (len(self.verdicts) + 1))
            cases, problems, log, secs = run_boot(boot, self.iso, self.logdir, self.manifest,
                                                  stop=self.done)
            verdict = self._verdict(cases, problems, log)
            self.verdicts.append((boot.name, verdict, secs, log))
            print("load  %-28s %s  (%.0f s)" % (boot.name, verdict, secs), flush=True)
            self.done.wait(LOAD_RESTART_PAUSE)

    def _verdict(self, cases, problems, log):
        """The judge's word on a torture that ended; a stopped one has none."""
        try:
            with open(log, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        if self.done.is_set() and not re.search(TORTURE_VERDICT, text, re.M):
            return "stopped as the runs ended (%d violations by then)" % len(
                TORTURE_VIOLATION.findall(text))
        failing = [name for name, st in cases if st == "fail"]
        return "FAIL: %s" % "; ".join(failing + problems) if failing or problems else "PASS"

    def stop(self):
        self.done.set()
        self.thread.join()


DIAGNOSTICS_SHOWN = 8   # KTAP "# ..." lines of a failing case, per run, in the table
TABLE_WIDTH = 200       # a longer failure (a list of cases that never ran) is cut


def failure_key(what):
    """A failure's text less what changes from one run of it to the next
    (times, addresses, counts, CPU numbers): two runs that fail the same way
    give the same key (the rows of make test-repeat's table; the torture's
    "fails the same way", tests/replay/torture_replay.py)."""
    what = re.sub(r"\[\s*\d+\.\d+\]", "", what)
    what = re.sub(r"\bcpu\d+\b", "cpuN", what)
    what = re.sub(r"\b0x[0-9a-f]+\b", "0x?", what)
    return re.sub(r"\b\d+(?:\.\d+)?\b", "N", what)


def cut(text, width=TABLE_WIDTH):
    return text if len(text) <= width else text[:width - 3] + "..."


def case_diagnostics(what, log, reports):
    """The KTAP diagnostics of the case what names ("boot: suite.case"), if
    it failed in log; reports caches the parsed logs."""
    if log not in reports:
        try:
            with open(log, errors="replace") as f:
                reports[log] = ktap.parse(f.read())
        except OSError:
            reports[log] = None
    for s, c in reports[log].cases() if reports[log] else ():
        if c.status == "fail" and what.endswith(": %s.%s" % (s.name, c.name)):
            return c.diagnostics
    return []


def report_repeat(runs, load):
    """The table of make test-repeat: each failure seen (failure_key), in how
    many runs and which, each one's log, with what it said there (the case's
    KTAP diagnostics, the problem's own numbers); each run's totals; the
    load's verdicts; and the count of clean runs."""
    times = len(runs)
    rows = {}
    for n, t, _ in runs:
        for what, log in t.failures:
            rows.setdefault(failure_key(what), []).append((n, what, log))
    print()
    if rows:
        print("failures (in how many of the %d runs, which, and where):" % times)
    reports = {}
    for key, seen in sorted(rows.items(), key=lambda row: -len({n for n, _, _ in row[1]})):
        failed_in = sorted({n for n, _, _ in seen})
        print("  %d/%d  run%s %-8s %s" % (len(failed_in), times, "s" if len(failed_in) > 1 else " ",
                                          ",".join(map(str, failed_in)), cut(key)))
        for n, what, log in seen:
            print("        run %d: %s" % (n, log or "(the run's directory)"))
            said = [what] if what != key else []
            said += ["# " + d for d in (case_diagnostics(what, log, reports) if log else [])]
            for line in said[:DIAGNOSTICS_SHOWN]:
                print("            %s" % cut(line))
    print("per run:")
    for n, t, secs in runs:
        print("  run %-3d %4d passed, %d failed  (%.0f s)" % (n, t.passed, t.failed, secs))
    if load is not None:
        print("load (not counted above): make torture's boot at -smp %s, %d boot%s" % (
            LOAD_TORTURE_SMP, len(load), "s" if len(load) != 1 else ""))
        for name, verdict, secs, log in load:
            print("  %-10s %s  (%.0f s, %s)" % (name, cut(verdict), secs, log))
    dirty = sum(1 for _, t, _ in runs if t.failed)
    print("%d run%s: %d clean, %d with failures" % (len(runs), "s" if len(runs) != 1 else "",
                                                    len(runs) - dirty, dirty))


def remove_qemu_inputs(logdir):
    """QEMU's per-boot inputs (the command-line disk, UEFI's variable store):
    1.4 MB each, of no use once the boot is judged."""
    for name in os.listdir(logdir) if os.path.isdir(logdir) else ():
        if name.endswith((".cmdline.img", ".OVMF_VARS.fd")):
            os.unlink(os.path.join(logdir, name))


def run_repeat(a, boots, det, logdir):
    """`make test-repeat` (and `make test-boot TIMES=n`): run boots (and
    with det the deterministic-mode checks) a.times times, run NN's logs
    in logdir/repeat/run-NN (the directory is emptied first), with
    a.load the torture beside them; then the table (report_repeat). Exit
    status 1 if any run failed. An interrupt (Ctrl-C) ends it once the boots
    under way have ended, with the table of the runs that finished."""
    if a.times < 1:
        sys.exit("repeat: --times %d: at least one run" % a.times)
    if not boots and not det:
        sys.exit("repeat: no boot of make test's list has a name containing %s" % a.only)
    top = os.path.join(logdir, "repeat")
    shutil.rmtree(top, ignore_errors=True)
    manifest = load_manifest(a.build)
    print("repeat: %d run%s of %d boot%s%s%s; logs in %s/run-NN" % (
        a.times, "s" if a.times != 1 else "", len(boots), "s" if len(boots) != 1 else "",
        " and the deterministic-mode checks" if det else "",
        ", beside the torture (logs in %s/load)" % top if a.load else "", top), flush=True)
    load = TortureLoad(a.plain_iso or a.iso, os.path.join(top, "load"), manifest) if a.load else None
    runs, interrupted = [], False
    try:
        for n in range(1, a.times + 1):
            rundir = os.path.join(top, "run-%02d" % n)
            os.makedirs(rundir)
            print("run %d of %d" % (n, a.times), flush=True)
            t, t0 = Tally(), time.time()
            if manifest is None:
                manifest_missing(t, a.build)
            run_boots(t, a, boots, det, rundir, manifest)
            runs.append((n, t, time.time() - t0))
            remove_qemu_inputs(rundir)
            print("run %d: %d passed, %d failed  (%.0f s)" % (n, t.passed, t.failed, runs[-1][2]),
                  flush=True)
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted in run %d of %d: the table has the %d that finished" % (
            len(runs) + 1, a.times, len(runs)), flush=True)
    finally:
        if load:
            load.stop()
            remove_qemu_inputs(load.logdir)
    report_repeat(runs, load.verdicts if load else None)
    sys.exit(130 if interrupted else 1 if any(t.failed for _, t, _ in runs) else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", nargs="?", default="all",
                    choices=["all", "host", "kernel", "harness", "matrix", "torture", "boot",
                             "repeat"])
    ap.add_argument("--tests", default="all", help="boot: the suites (test=)")
    ap.add_argument("--duration", type=int, default=3600, help="torture: seconds")
    ap.add_argument("--interval", type=int, default=0, help="torture: ms between hotplug operations")
    ap.add_argument("--smp", default="4", help="torture: QEMU -smp")
    ap.add_argument("--mem", default="512M", help="torture: QEMU -m")
    ap.add_argument("--machine", default="q35", help="torture: QEMU -M")
    ap.add_argument("--seed", type=int, default=0, help="torture: PRNG seed (0: from the clock)")
    ap.add_argument("--deterministic", type=int, default=0,
                    help="torture: 1 for a deterministic run (QEMU -icount, all from the seed)")
    ap.add_argument("--cycles", type=int, default=0, help="torture: cycles (0: --duration)")
    ap.add_argument("--args", default="", help="torture: more kernel parameters")
    ap.add_argument("--times", type=int, default=1,
                    help="repeat, boot: how many runs (each one's logs in test-logs/repeat/run-NN)")
    ap.add_argument("--load", type=int, default=0,
                    help="repeat, boot: 1 for a torture beside the runs (make torture's boot)")
    ap.add_argument("--iso", default="build/baton.iso")
    ap.add_argument("--build", default="build")
    ap.add_argument("--ubsan-iso", default=None,
                    help="the SAN=ubsan image, for the boots that ask for it (make test)")
    ap.add_argument("--plain-iso", default=None,
                    help="the plain image, for the boots that measure guest time (make test)")
    ap.add_argument("--lab", default="",
                    help="torture, boot: lab NAME's image, built beside --iso (make's LAB=)")
    ap.add_argument("-k", dest="only",
                    help="run only boots whose name contains this (or one of a,b,c)")
    # One boot more than the host's cores: each spends some of its time not
    # running its vCPUs (QEMU and GRUB starting, the harness's round trips,
    # halted vCPUs waiting for a wake-up); VCPU_BUDGET keeps them from
    # crowding the cores with vCPUs. make test on the 2-core machine: 9 m 19 s
    # at 3, 9 m 42 s to 11 m 16 s at 2.
    ap.add_argument("-j", dest="jobs", type=int,
                    default=int(os.environ.get("JOBS", (os.cpu_count() or 2) + 1)))
    a = ap.parse_args()
    logdir = os.path.join(a.build, "test-logs")
    os.makedirs(logdir, exist_ok=True)
    if a.what == "torture":
        run_torture(a, logdir)
    if a.what == "boot":
        run_one(a, logdir)
    if a.what == "repeat":
        run_repeat(a, *select_boots("all", a.only), logdir=logdir)
    t = Tally()
    manifest = load_manifest(a.build)
    if manifest is None and a.what != "host":
        manifest_missing(t, a.build)
    if a.what in ("all", "host"):
        run_host(t, a.build)
    run_boots(t, a, *select_boots(a.what, a.only), logdir=logdir, manifest=manifest)
    print("%d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)


if __name__ == "__main__":
    main()
