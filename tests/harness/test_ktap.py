#!/usr/bin/env python3
"""tests/harness/test_ktap.py - unit tests of the harness's judge, on made-up logs.

tests/harness/ktap.py (the KTAP parser) and the parts of tests/harness/run_tests.py that
decide a boot's fate without booting anything: the kernel-report lines
(WARNING, BUG, their "expected by a test" forms), the check against the
kernel's suite table (missing suite or case, short plan, a case that died
mid-run, SKIPs and when they are allowed) and the exit status; the bench's
chain verdict (tests/harness/bench.py); tests/vm/torture_qmp.py's host side against a
made-up machine and QMP (a late WARNING, a wrong refusal, a CPU nobody
added). Each case prints "ok N - name" or "not ok N - name" with
"    # ..." lines saying why; run by `make test` as a host check
(run_tests.py run_check).
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # tests/
from harness import ktap, run_tests, tap_main  # noqa: E402

MANIFEST = {"suites": [
    {"name": "alpha", "explicit": False, "cases": ["a1", "a2", "a3"]},
    {"name": "beta", "explicit": False, "cases": ["b1", "b2"]},
    {"name": "gamma", "explicit": True, "cases": ["g1"]},
]}


def suite(name, cases, plan=None, indent="    "):
    """KTAP for one suite; cases: [(name, "ok"|"not ok"|"skip REASON")]."""
    out = [indent + "KTAP version 1", indent + "# Subtest: " + name,
           indent + "1..%d" % (len(cases) if plan is None else plan)]
    failed = False
    for i, (c, st) in enumerate(cases, 1):
        if st.startswith("skip"):
            out.append(indent + "ok %d %s # SKIP %s" % (i, c, st[5:]))
        else:
            out.append(indent + "%s %d %s" % (st, i, c))
            failed |= st == "not ok"
    return out, failed


def run(suites, plan=None, end=True, prefix="[    0.001000][cpu0] smp: 1 CPUs possible, "
        "1 present, 1 online"):
    """A whole log: boot noise, KTAP for suites [(name, cases[, plan])], the summary."""
    lines = ["GRUB loading...", prefix, "KTAP version 1", "1..%d" % (
        len(suites) if plan is None else plan)]
    for n, s in enumerate(suites, 1):
        body, failed = suite(*s)
        lines += body
        if end or n < len(suites):
            lines.append("%s %d %s" % ("not ok" if failed else "ok", n, s[0]))
    if end:
        lines.append("# baton-tests: 0 passed, 0 failed, 0 skipped")
    return "\r\n".join(lines) + "\r\n"


ALL_OK = [("alpha", [("a1", "ok"), ("a2", "ok"), ("a3", "ok")]),
          ("beta", [("b1", "ok"), ("b2", "ok")])]


def judge(log, status=33, how="exit", tests="all", smp=1, **kw):
    boot = run_tests.Boot("unit", tests, smp=smp, **kw)
    return run_tests.judge(log, status, how, boot, manifest=MANIFEST)


def has(problems, text):
    assert any(text in p for p in problems), "no problem contains %r: %r" % (text, problems)


# --- tests/harness/ktap.py ---------------------------------------------------

def test_parse_counts_and_skip_reason():
    rep = ktap.parse(run(ALL_OK[:1] + [("beta", [("b1", "skip needs at least 2 CPUs"), ("b2", "not ok")])]))
    assert rep.problems == [], rep.problems
    assert rep.counts() == {"pass": 3, "fail": 1, "skip": 1}, rep.counts()
    c = rep.suites[1].cases[0]
    assert (c.status, c.reason) == ("skip", "needs at least 2 CPUs"), (c.status, c.reason)


def test_parse_no_ktap():
    rep = ktap.parse("GRUB\r\nbaton> poweroff\r\n")
    assert not rep.found
    has(rep.problems, "no KTAP output")


def test_parse_short_top_level_plan():
    has(ktap.parse(run(ALL_OK, plan=3)).problems, "plan 1..3 but only 2 results")


def test_parse_short_suite():
    rep = ktap.parse(run([("alpha", [("a1", "ok")], 3)]))
    has(rep.problems, "suite alpha: plan 1..3 but 1 cases")


def test_parse_case_out_of_order():
    log = run(ALL_OK).replace("ok 2 a2", "ok 3 a2")
    has(ktap.parse(log).problems, "suite alpha: case 3 out of order")


def test_parse_result_disagrees():
    log = run(ALL_OK).replace("\nok 1 alpha", "\nnot ok 1 alpha")
    has(ktap.parse(log).problems, "suite alpha: result disagrees with its cases")


def test_parse_diagnostics_belong_to_the_next_result():
    log = run(ALL_OK).replace("    not ok", "").replace(
        "    ok 2 a2", "    # FAIL x.c:1: expected 1 == 2\r\n    not ok 2 a2")
    rep = ktap.parse(log)
    c = rep.suites[0].cases[1]
    assert c.status == "fail" and c.diagnostics == ["FAIL x.c:1: expected 1 == 2"], vars(c)


# --- the judge (tests/harness/run_tests.py) ----------------------------------

def test_judge_clean_run_passes():
    cases, problems = judge(run(ALL_OK))
    assert problems == [] and len(cases) == 5, problems


def test_judge_missing_suite():
    has(judge(run(ALL_OK[:1]))[1], "suite beta is missing from the report")


def test_judge_missing_case():
    log = run([("alpha", [("a1", "ok"), ("a3", "ok")], 3)] + ALL_OK[1:]).replace("ok 2 a3", "ok 2 a3")
    problems = judge(log)[1]
    has(problems, "suite alpha: cases missing from the report: a2")


def test_judge_short_plan_against_the_table():
    log = run([("alpha", [("a1", "ok"), ("a2", "ok")])] + ALL_OK[1:])
    problems = judge(log)[1]
    has(problems, "suite alpha: plan 1..2, but the kernel's table has 3 cases")
    has(problems, "cases missing from the report: a3")


def test_judge_case_not_in_table():
    log = run([("alpha", [("a1", "ok"), ("a2", "ok"), ("a3", "ok"), ("a4", "ok")])] + ALL_OK[1:])
    has(judge(log)[1], "suite alpha: case a4 is not in the kernel's table")


def test_judge_explicit_suite_only_when_named():
    log = run(ALL_OK + [("gamma", [("g1", "ok")])])
    has(judge(log)[1], "suite gamma ran, but test=all does not select it")
    assert judge(run([("gamma", [("g1", "ok")])]), tests="gamma")[1] == []


def test_judge_unknown_suite():
    log = run([]).replace("KTAP", "[    0.1][cpu0] ktest: no test suite named 'nope'\r\nKTAP", 1)
    problems = judge(log, status=35, tests="nope")[1]
    has(problems, "test=nope: the kernel has no suite 'nope'")
    has(problems, "the kernel: [    0.1][cpu0] ktest: no test suite named 'nope'")


def test_judge_case_dies_mid_run():
    log = run([ALL_OK[0], ("beta", [("b1", "ok")], 2)], end=False)
    problems = judge(log, status=None, how="timeout")[1]
    has(problems, "beta.b2 did not finish: the boot ended during it (a timeout)")
    log = run([("alpha", [("a1", "ok")], 3)], end=False)
    problems = judge(log, status=33)[1]
    has(problems, "alpha.a2 did not finish: the boot ended during it (QEMU exited with status 33)")
    has(problems, "never ran: alpha.a3, beta (all 2 cases)")


def test_judge_exit_zero_without_results():
    problems = judge("GRUB\r\nbaton> poweroff\r\n", status=0)[1]
    has(problems, "no KTAP output")
    has(problems, "QEMU exit status 0, expected 33")


def test_judge_wrong_exit_status():
    has(judge(run(ALL_OK), status=35)[1], "QEMU exit status 35, expected 33")


def test_judge_skip_explained_by_the_configuration():
    one = [("alpha", [("a1", "skip needs at least 2 CPUs"), ("a2", "skip needs at least 3 CPUs"),
                      ("a3", "ok")]), ALL_OK[1]]
    assert judge(run(one), smp=1)[1] == []
    log = run(one, prefix="[0][cpu0] smp: 2 CPUs possible, 2 present, 2 online")
    problems = judge(log, smp=2)[1]
    has(problems, "alpha.a1: unexpected SKIP (needs at least 2 CPUs) at -smp 2")
    assert not any("alpha.a2" in p for p in problems), problems   # 3 > 2 present


def test_judge_skip_in_one_wording_only():
    """ktest_need_cpus()'s wording, and no other: the old ones fail even at -smp 1."""
    for why in ("needs two CPUs", "needs more online CPUs", "needs at least 2 online CPUs",
                "the CPU-hotplug torture needs at least 2 CPUs"):
        log = run([("alpha", [("a1", "skip " + why), ("a2", "ok"), ("a3", "ok")]), ALL_OK[1]])
        has(judge(log, smp=1)[1], "alpha.a1: unexpected SKIP (%s) at -smp 1" % why)


def test_judge_skip_for_every_cpu_online():
    why = "every possible CPU is online (boot with maxcpus above -smp)"
    log = run([("alpha", [("a1", "skip " + why), ("a2", "ok"), ("a3", "ok")]), ALL_OK[1]])
    assert judge(log)[1] == []
    log = log.replace("1 CPUs possible", "8 CPUs possible")
    has(judge(log, smp="1,maxcpus=8")[1], "alpha.a1: unexpected SKIP (%s)" % why)


def test_judge_unknown_skip_reason():
    log = run([("alpha", [("a1", "skip not today"), ("a2", "ok"), ("a3", "ok")]), ALL_OK[1]])
    has(judge(log)[1], "alpha.a1: unexpected SKIP (not today) at -smp 1")


def test_judge_error_reports_fail_and_are_quoted():
    line = "[    1.5][cpu3] BUG: kmalloc: double free of 0xffff8000"
    problems = judge(run(ALL_OK).replace("KTAP", line + "\r\nKTAP", 1))[1]
    assert problems == ["the kernel reported an error: " + line], problems
    line = "[    1.5][cpu1] WARNING: x.c:3 (called from f+0x4/0x10) on cpu1: oops"
    problems = judge(run(ALL_OK).replace("KTAP", line + "\r\nKTAP", 1))[1]
    assert problems == ["the kernel printed a WARNING: " + line], problems


def test_judge_expected_reports_pass():
    log = run(ALL_OK).replace("KTAP", "[1][cpu0] BUG (expected by a test): kmalloc: double free\r\n"
                              "[1][cpu0] WARNING (expected by a test): x.c:1 on cpu0: w\r\nKTAP", 1)
    assert judge(log)[1] == []


def test_judge_report_of_another_kind_and_one_that_never_came():
    # A case declared a "selftest" report; one of another kind came instead.
    # The kernel prints that one plain and fails the case (the declared one
    # never came): the judge quotes the line and counts the failed case.
    line = "[    1.5][cpu1] BUG: unrelated: a report of another kind"
    log = run([("alpha", [("a1", "ok"), ("a2", "not ok"), ("a3", "ok")]), ALL_OK[1]])
    log = log.replace("    not ok 2 a2", line + "\r\n    # FAIL kernel/tools/ktest.c:67: the case "
                      "declared 1 report(s) \"BUG: selftest: ...\", and 0 came\r\n"
                      "    not ok 2 a2", 1)
    cases, problems = judge(log, status=run_tests.qemu.EXIT_FAILURE)
    assert ("alpha.a2", "fail") in cases, cases
    assert problems == ["the kernel reported an error: " + line], problems


def test_judge_reports_in_interactive_boots():
    boot = run_tests.Boot("unit", "", interact=lambda m, b: [])
    log = "baton> demo\r\n[2][cpu1] BUG: workqueue: pool cpu1 stalled\r\nbaton> poweroff\r\n"
    problems = run_tests.judge(log, 0, "exit", boot, [("x", True, "")], MANIFEST)[1]
    assert problems == ["the kernel reported an error: [2][cpu1] BUG: workqueue: pool cpu1 "
                        "stalled"], problems


def test_judge_qemu_unplug_abort_only_after_power_down():
    # QEMU 7.2's heap corruption after a vCPU unplug, caught by glibc at exit.
    boot = run_tests.Boot("unit", "", interact=lambda m, b: [])
    eject = "[1][cpu0] acpi-cpuhp: cpu2 offline and ejected (30460 us)\r\n"
    down = "baton> poweroff\r\npowering off\r\n[2][cpu0] Power down.\r\n"
    abort = "malloc(): unsorted double linked list corrupted\r\n"
    judged = run_tests.judge(eject + down + abort, -6, "exit", boot, [("x", True, "")], MANIFEST)
    assert judged[1] == [], judged
    for log, why in ((down + abort, "no vCPU was ejected"),
                     (eject + abort + down, "before the power-down"),
                     (eject + down + "Segmentation fault\r\n", "not the heap abort")):
        problems = run_tests.judge(log, -6, "exit", boot, [("x", True, "")], MANIFEST)[1]
        assert problems == ["QEMU exit status -6 after poweroff, expected 0"], (why, problems)


def test_judge_interactive_timeout():
    boot = run_tests.Boot("unit", "", interact=lambda m, b: [], timeout=7)
    problems = run_tests.judge("baton> ", None, "timeout", boot, None, MANIFEST)[1]
    has(problems, "timeout after 7 s (the session did not power off)")
    has(problems, "interaction: did not finish before the boot's deadline")


def test_judge_panic_other_cpus_printing():
    log = run([("alpha", [("a1", "ok")], 3)], end=False) + \
        "[2][cpu1] Kernel panic - not syncing: x\r\n[2][cpu2] still here\r\n"
    problems = judge(log, status=37)[1]
    has(problems, "panic: Kernel panic - not syncing: x")
    has(problems, "after the panic, CPUs 2 still printed")
    has(problems, "alpha.a2 did not finish: the boot ended during it (a panic)")


def test_send_fails_when_the_guest_reads_nothing():
    """qemu.Machine.send() against a process that never reads its input:
    a clear error after the stall time, not a write blocked for ever."""
    import subprocess
    import time
    from harness import qemu
    m = qemu.Machine("none.iso", name="unit")
    m.proc = subprocess.Popen(["sleep", "30"], stdin=subprocess.PIPE)
    try:

        try:
            m.send(b"x" * (1 << 20), stall=1)
            raise AssertionError("send() returned")
        except qemu.QemuError as e:
            assert "serial input stalled: the guest took none of it for 1 s" in str(e), e
        m.deadline = time.time() - 1        # and the boot's deadline ends it too
        try:
            m.send(b"y")
            raise AssertionError("send() returned after the deadline")
        except qemu.QemuError as e:
            assert "the boot's time ran out" in str(e), e
    finally:
        m.proc.kill()
        m.proc.wait()


def test_uefi_boot_without_ovmf_fails_clearly():
    """A UEFI boot on a machine without OVMF is a failure that names the
    package, not a skip and not a crash; a bad firmware name is refused."""
    import contextlib
    import io
    import tempfile
    from harness import qemu
    saved = qemu.OVMF_DIR
    with tempfile.TemporaryDirectory() as tmp:
        qemu.OVMF_DIR = os.path.join(tmp, "no-ovmf-here")
        try:
            boot = run_tests.Boot("unit-uefi", "all", firmware="uefi")
            cases, problems, _, _ = run_tests.run_boot(boot, os.path.join(tmp, "x.iso"), tmp,
                                                       MANIFEST)
        finally:
            qemu.OVMF_DIR = saved
        t, out = run_tests.Tally(), io.StringIO()
        with contextlib.redirect_stdout(out):
            run_tests.report_boot(t, boot, cases, problems, "log", 0)
        assert t.failed and "FAIL  unit-uefi: UEFI boot: OVMF firmware missing" in \
            out.getvalue(), out.getvalue()
        has(problems, "UEFI boot: OVMF firmware missing (%s/no-ovmf-here/OVMF_CODE_4M.fd, "
            % tmp)
        has(problems, "install the Debian package ovmf")
        # and an ISO made without GRUB's EFI build is named as such
        iso = os.path.join(tmp, "bios-only.iso")
        with open(iso, "wb") as f:
            f.write(b"\0" * 40 * 2048)
        if os.path.exists(os.path.join(saved, qemu.OVMF_CODE)):
            try:
                qemu.uefi_prepare(iso, os.path.join(tmp, "vars.fd"))
                raise AssertionError("uefi_prepare() took an ISO without a UEFI boot entry")
            except qemu.QemuError as e:
                assert "has no UEFI boot entry" in str(e) and "grub-efi-amd64-bin" in str(e), e
    try:
        qemu.qemu_argv("x.iso", firmware="efi")
        raise AssertionError("qemu_argv() took firmware 'efi'")
    except qemu.QemuError as e:
        assert "use bios or uefi" in str(e), e


def test_manifest_reads_the_built_kernel():
    """build/ktest-manifest.json, when built, holds test=all's suites."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build")
    m = run_tests.load_manifest(path)
    if m is None:
        return
    names = {s["name"]: s for s in m["suites"]}
    assert names["selftest_fail"]["cases"] == ["passes_on_purpose", "fails_on_purpose"]
    assert names["selftest_fail"]["explicit"] and not names["kmalloc"]["explicit"]


def det_log(cmdline, body, lab=None):
    boot = run_tests.Boot("t", "hotplug_torture", smp="3", extra_cmdline=cmdline, deterministic=9,
                          lab=lab)
    return run_tests.det_header(boot) + "\n" + body


def test_det_header_round_trip():
    """A deterministic log's first line gives back seed, machine, the
    kernel parameters and the lab's image it booted (and the make command
    that runs them, on that image)."""
    import tempfile
    from replay import torture_replay
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(det_log("torture_cycles=40 torture_interval_ms=0 torture_trace=1024 "
                        "torture_threads=3", "[    0.1][cpu0] hello\n", lab="late-last-pool"))
    try:
        c = torture_replay.Config.from_log(f.name)
    finally:
        os.unlink(f.name)
    assert (c.seed, c.smp, c.mem, c.machine) == (9, "3", "512M", "q35")
    assert c.params["torture_cycles"] == "40" and "deterministic" not in c.params
    assert c.lab == "late-last-pool" and c.boot("x").lab == "late-last-pool"
    assert c.boot("x").cmdline == run_tests.Boot(
        "t", "hotplug_torture", smp="3", deterministic=9, extra_cmdline=c.cmdline()).cmdline
    cmd = c.make_command()
    assert cmd.startswith("make torture LAB=late-last-pool "), cmd
    assert "SEED=9 SMP=3" in cmd and "CYCLES=40" in cmd, cmd
    assert "TORTURE_ARGS='torture_threads=3'" in cmd, cmd
    assert "LAB=late-last-pool LOG=x.log" in torture_replay.replay_command("torture-replay", c,
                                                                          "x.log")
    assert run_tests.lab_iso("build-san/baton.iso", "late-last-pool") == \
        "build-san/lab-late-last-pool/build-san/baton.iso"


def test_det_header_without_lab():
    """A run on the build's own image: no lab in its header or its commands."""
    boot = run_tests.Boot("t", "hotplug_torture", smp="2", deterministic=3)
    assert '"lab"' not in run_tests.det_header(boot)
    from replay import torture_replay
    c = torture_replay.Config.from_boot(boot)
    assert c.lab is None and "LAB=" not in c.make_command(), c.make_command()


def test_det_log_without_header_is_refused():
    import tempfile
    from replay import torture_replay
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write("[    0.1][cpu0] torture: violation 1: x\n")
    try:
        torture_replay.Config.from_log(f.name)
        raise AssertionError("an ordinary log was taken for a deterministic one")
    except SystemExit as e:
        assert "not a deterministic run's log" in str(e)
    finally:
        os.unlink(f.name)


def test_failure_kind_ignores_numbers_and_item_names():
    """Shrinking compares failures by kind: the same violation with other
    numbers, items and CPUs is the same kind; another violation is not."""
    from replay import torture_replay
    a = torture_replay.failure_kind(
        "[    0.481313][cpu1] torture: violation 1: item doomed/0: 2 executions at once "
        "(one on cpu1)\n")
    b = torture_replay.failure_kind(
        "[    1.000001][cpu3] torture: violation 1: item hi-requeue/1: 2 executions at once "
        "(one on cpu2)\r\n")
    c = torture_replay.failure_kind(
        "[    1.000001][cpu3] torture: violation 1: flush_work returned early: item p/1 "
        "queued 2, ran 1, cancelled 0\n")
    assert a["time"] == "0.481313" and a["kind"] == b["kind"] != c["kind"], (a, b, c)
    assert torture_replay.failure_kind("[ 1.0][cpu0] torture: PASS\n") is None


def test_shrink_candidates_are_smaller():
    """Every candidate the shrinker tries is smaller in one dimension."""
    from replay import torture_replay
    c = torture_replay.Config(5, "4", "512M", "q35", {"torture_cycles": "300"})
    cands = torture_replay.candidates(c, first_cycle=17)
    assert cands and all(x.size() < c.size() for _, x in cands), [w for w, _ in cands]
    assert cands[0][1].params["torture_cycles"] == "17"
    assert any(x.smp == "3" for _, x in cands)
    assert any(x.params.get("torture_threads") == "3" for _, x in cands)
    assert any(x.params.get("delay_points", "all") != "all" for _, x in cands)


def test_echo_survives_kernel_lines_in_between():
    import re
    from vm import shell_tests
    pat = shell_tests.echo_pattern("torture stop")
    one = "torture\r\n[    2.183203][cpu0] sched: a line\r\n stop\r\n"
    two = ("torture\r\n[    2.183203][cpu0] sched: a line\r\n"
           "[    2.184390][cpu0] sched: another\r\n stop\r\n")
    assert re.match(pat, one) and re.match(pat, two)
    assert not re.match(pat, "torture\r\nnot a kernel line\r\n stop")


# --- make test-repeat's table (tests/harness/run_tests.py) -------------------

def test_repeat_table_counts_each_failure_in_its_runs():
    """One row per failure, counted in the runs it came in: the same WARNING
    at another time on another CPU is one row with both runs and both logs,
    each with its own text; a failing case shows its KTAP diagnostics; the
    last line counts the clean runs."""
    import contextlib
    import io
    import tempfile
    warning = "[%12.6f][cpu%d] WARNING: kernel/x.c:12 at 0x%x: 3 workers, expected 2\r\n"
    made = [(warning % (1.5, 1, 0xffff8010), "not ok"), (warning % (20.25, 3, 0xffff8044), "ok"),
            ("", "ok")]
    runs, out = [], io.StringIO()
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(out):
        for n, (before, a2) in enumerate(made, 1):
            log = before + run(ALL_OK[:1] + [("beta", [("b1", "ok"), ("b2", a2)])]).replace(
                "    not ok 2 b2", "    # FAIL x.c:7: expected 65 == 63\r\n    not ok 2 b2")
            path = os.path.join(tmp, "run-%d.log" % n)
            with open(path, "w") as f:
                f.write(log)
            boot = run_tests.Boot("unit", "alpha,beta")
            cases, problems = run_tests.judge(log, 33 if a2 == "ok" else 35, "exit", boot,
                                              manifest=MANIFEST)
            t = run_tests.Tally()
            run_tests.report_boot(t, boot, cases, problems, path, 1)
            runs.append((n, t, 10.0 * n))
        run_tests.report_repeat(runs, None)
    table = out.getvalue().split("\nfailures")[1]
    lines = table.splitlines()
    row = next(i for i, x in enumerate(lines) if "unit: the kernel printed a WARNING" in x)
    assert re.match(r"  2/3  runs 1,2 +unit: the kernel printed a WARNING: \[cpuN\] WARNING: "
                    r"kernel/x\.c:N at 0x\?: N workers, expected N$", lines[row]), lines[row]
    assert lines[row + 1].endswith("run 1: %s" % runs[0][1].failures[1][1]), lines[row + 1]
    assert "[    1.500000][cpu1] WARNING" in lines[row + 2], lines[row + 2]
    assert lines[row + 3].endswith("run-2.log") and "[   20.250000][cpu3]" in lines[row + 4], lines
    row = next(i for i, x in enumerate(lines) if x.endswith("unit: beta.b2"))
    assert lines[row].startswith("  1/3  run  1 "), lines[row]
    assert lines[row + 2].strip() == "# FAIL x.c:7: expected 65 == 63", lines[row + 2]
    assert "  run 2      5 passed, 1 failed  (20 s)" in lines, lines
    assert lines[-1] == "3 runs: 1 clean, 2 with failures", lines[-1]


# --- tests/harness/bench.py --------------------------------------------------

def chain_log(cmwq, dedicated, tpi):
    """The chain scenario's lines; each model (completed, reached, ms)."""
    return "".join("[   5.0][cpu0] bench: cmp chain %s depth=256 completed=%d reached=%d "
                   "ns=%d\r\n" % (m, c, r, t * 1000000) for m, (c, r, t) in (
                       ("cmwq", cmwq), ("dedicated", dedicated), ("thread-per-item", tpi)))


def test_bench_chain_stall_fails():
    """cmwq and a thread per item must complete the chain, every item run;
    one thread per CPU must deadlock on it. (Before: a stall was a table
    cell, "STALLED", and the run passed.)"""
    from harness import bench
    good = chain_log((1, 256, 224), (0, 1, 5000), (1, 256, 24))
    assert bench.chain_problems(bench.parse_compare(good)) == []
    problems = bench.chain_problems(bench.parse_compare(
        chain_log((0, 100, 60000), (0, 1, 5000), (1, 256, 24))))
    assert problems == ["chain: cmwq stalled: it gave up after 60000.0 ms with item 100 of 256 "
                        "the deepest run (it must complete)"], problems
    has(bench.chain_problems(bench.parse_compare(
        chain_log((1, 256, 224), (0, 1, 5000), (0, 3, 60000)))), "chain: thread-per-item stalled")
    has(bench.chain_problems(bench.parse_compare(
        chain_log((1, 200, 224), (0, 1, 5000), (1, 256, 24)))),
        "chain: cmwq completed, but its deepest item run is 200 of 256")
    has(bench.chain_problems(bench.parse_compare(
        chain_log((1, 256, 224), (1, 256, 30), (1, 256, 24)))),
        "chain: the dedicated model completed it (30.0 ms), but one thread per CPU must deadlock")
    has(bench.chain_problems(bench.parse_compare(good.split("\r\n", 1)[1])),
        "chain: no figures for cmwq")


# --- tests/vm/torture_qmp.py against a made-up machine -----------------------

class FakeClock:
    """torture_qmp's clock in these tests: each reading 10 ms after the
    last, so that a run's course depends on its seed alone, not on the host."""

    def __init__(self):
        self.t = 1000.0

    def time(self):
        self.t += 0.01
        return self.t

    def sleep(self, s):
        self.t += s


def with_fake_clock(fn):
    from vm import torture_qmp
    saved, torture_qmp.time = torture_qmp.time, FakeClock()
    try:
        return fn()
    finally:
        torture_qmp.time = saved


def fake_qmp_class():
    import socket
    from harness import qemu

    class FakeQMP(qemu.QMP):
        """qemu.QMP (its execute() and error replies, as they are) over a
        made-up socket: what is sent goes to the guest, which queues the
        reply and the events after it."""

        def __init__(self, guest):
            self.guest, self.buf, self.events, self.timeout = guest, b"", [], 10
            self.incoming = []
            self.sock = self

        def sendall(self, data):
            self.guest.command(json.loads(data.decode()))

        def settimeout(self, t):
            pass

        def _read(self):
            if not self.incoming:
                raise socket.timeout()
            return self.incoming.pop(0)

    return FakeQMP


BOOT_REFUSAL = {"class": "GenericError", "desc": "Boot CPU is unpluggable"}     # QEMU 7.2's


class FakeGuest:
    """A booted baton as torture_qmp.py sees it: serial output and the
    shell's answers, QMP replies and events; -smp SMP,maxcpus=MAXCPUS, a
    slot per core. boot_refusal: QEMU's error for a device_del of the boot
    CPU (None: QEMU passes it on and the kernel answers _OST eject status
    boot_ost); at_poweroff: what the log gets after the power-down; unasked:
    events QEMU sends after the first device_add's own."""

    def __init__(self, smp=1, maxcpus=2, boot_refusal=BOOT_REFUSAL, boot_ost=0x80,
                 at_poweroff="", unasked=()):
        self.out = "GRUB\r\n[    0.000000][cpu0] baton 0.1\r\nbaton> "
        self.paths = {i: "/machine/unattached/device[%d]" % i for i in range(smp)}
        self.maxcpus, self.boot_refusal, self.boot_ost = maxcpus, boot_refusal, boot_ost
        self.at_poweroff, self.unasked = at_poweroff, list(unasked)
        self.status, self.proc, self.deadline, self.log_path = None, object(), None, "fake.log"
        self.qmp = fake_qmp_class()(self)

    @property
    def output(self):
        return self.out

    def mark(self):
        return len(self.out)

    def expect(self, pattern, timeout):
        return self.expect_from(0, pattern, timeout)

    def expect_from(self, mark, pattern, timeout, flags=0):
        return re.compile(pattern, flags).search(self.out[mark:])

    def exited(self):
        return self.status

    def wait(self, timeout):
        return self.status

    def send(self, data):
        line = data.rstrip("\r")
        self.out += line + "\r\n"
        if line == "poweroff":
            self.out += "[    9.000000][cpu0] Power down.\r\n" + self.at_poweroff
            self.status = 0
            return
        self.out += {"torture start 0 0 both": "[    1.000000][cpu0] torture: running\r\n",
                     "torture stop": "[    8.000000][cpu0] torture: PASS\r\n",
                     "cpus": "cpu0   apic 0   online\r\n"}[line] + "baton> "

    def event(self, name, data):
        self.qmp.incoming.append({"event": name, "data": data})

    def ost(self, slot, source, status, device=None):
        info = {"slot": str(slot), "slot-type": "CPU", "source": source, "status": status}
        if device:
            info["device"] = device
        self.event("ACPI_DEVICE_OST", {"info": info})

    def command(self, msg):
        cmd, args, q = msg["execute"], msg.get("arguments", {}), self.qmp
        if cmd == "query-hotpluggable-cpus":
            ret = [dict({"type": "qemu64-x86_64-cpu", "vcpus-count": 1,
                         "props": {"socket-id": 0, "core-id": i, "thread-id": 0}},
                        **({"qom-path": self.paths[i]} if i in self.paths else {}))
                   for i in reversed(range(self.maxcpus))]
            q.incoming.append({"return": ret})
        elif cmd == "query-cpus-fast":
            q.incoming.append({"return": [{"cpu-index": i, "qom-path": p}
                                          for i, p in sorted(self.paths.items())]})
        elif cmd == "device_add":
            core = args["core-id"]
            self.paths[core] = "/machine/peripheral/" + args["id"]
            q.incoming.append({"return": {}})
            self.ost(core, 1, 0, args["id"])
            q.incoming += self.unasked
            self.unasked = []
        elif cmd == "device_del":
            core = [c for c, p in self.paths.items() if args["id"] in (p, p.rsplit("/", 1)[1])]
            if core == [0] and self.boot_refusal:
                q.incoming.append({"error": self.boot_refusal})
            elif core == [0]:
                q.incoming.append({"return": {}})
                self.ost(0, 3, self.boot_ost)
            else:
                path = self.paths.pop(core[0])
                q.incoming.append({"return": {}})
                self.event("DEVICE_DELETED", {"path": path + "/lapic"})
                self.event("DEVICE_DELETED", dict({"path": path}, **(
                    {"device": args["id"]} if path.startswith("/machine/peripheral/") else {})))
        else:
            raise AssertionError("the fake QEMU knows no %r" % cmd)

    def events(self):
        out, self.qmp.incoming = self.qmp.incoming, []
        return out


def fake_host(guest):
    import random
    from vm import torture_qmp
    h = torture_qmp.HostTorture(guest, random.Random(1), torture_qmp.Figures(1, "both"))
    h.setup()
    return h


def fails(fn, *texts):
    """fn() raises torture_qmp.Failure, its message holding every text."""
    from vm import torture_qmp
    try:
        fn()
    except torture_qmp.Failure as e:
        for t in texts:
            assert t in str(e), "%r not in the failure %r" % (t, str(e))
        return str(e)
    raise AssertionError("no failure (wanted one saying %r)" % (texts,))


def fake_run(at_poweroff):
    from vm import torture_qmp
    lines = []
    ok, reason, fig = with_fake_clock(lambda: torture_qmp.run_boots(
        FakeGuest(at_poweroff=at_poweroff), lambda n: FakeGuest(at_poweroff=at_poweroff), 7,
        20, "both", lines.append))
    return ok, reason, fig


def test_torture_qmp_scans_each_boot_to_its_end():
    """A WARNING, BUG or panic printed during the power-down, after the
    torture's verdict, fails the run; a clean power-down does not."""
    ok, reason, fig = fake_run("")
    assert ok and fig.cycles >= 2 and fig.boots >= 2, (ok, reason, vars(fig))
    late = "[    9.100000][cpu1] WARNING: kernel/smp.c:120 (called from f+0x4/0x10) on cpu1: late"
    ok, reason, fig = fake_run(late + "\r\n")
    assert not ok and reason.startswith("the kernel printed: " + late), reason
    assert "after the torture's verdict" in reason, reason
    ok, reason, fig = fake_run("[    9.1][cpu0] BUG: kmalloc: double free, no newline")
    assert not ok and "BUG: kmalloc: double free, no newline" in reason, reason
    ok, reason, fig = fake_run("[    9.1][cpu0] Kernel panic - not syncing: at the end\r\n")
    assert not ok and reason.startswith("panic: "), reason


def test_torture_qmp_boot_cpu_probe_wants_the_refusal():
    """QEMU's refusal of the boot CPU's device_del is "Boot CPU is
    unpluggable" (GenericError); any other error is not a refusal."""
    h = fake_host(FakeGuest())
    h.probe()
    assert not h.pending and h.fig.probes == 1, (h.pending, vars(h.fig))
    for cls, desc in (("DeviceNotFound", "Device '/machine/unattached/device[0]' not found"),
                      ("GenericError", "acpi: device unplug request for not supported "
                                       "device type: qemu64-x86_64-cpu"),
                      ("CommandNotFound", "Boot CPU is unpluggable")):
        h = fake_host(FakeGuest(boot_refusal={"class": cls, "desc": desc}))
        fails(h.probe, "device_del of the boot CPU", "QEMU answered %s %r" % (cls, desc),
              "not its refusal (GenericError 'Boot CPU is unpluggable')")


def test_torture_qmp_boot_cpu_probe_wants_the_kernels_refusal():
    """Passed on to the kernel, the boot CPU's removal must be refused with
    _OST eject status 0x80 (ejection not supported), not any failure."""
    g = FakeGuest(boot_refusal=None)
    h = fake_host(g)
    h.probe()
    for ev in g.events():
        h.on_event(ev)
    assert not h.pending, h.pending
    g = FakeGuest(boot_refusal=None, boot_ost=0x81)
    h = fake_host(g)
    h.probe()
    fails(lambda: [h.on_event(ev) for ev in g.events()],
          "device_del of the boot CPU", "status 0x81, not its refusal 0x80")


def test_torture_qmp_unasked_insert_is_a_problem():
    """An ACPI_DEVICE_OST insertion with no device_add outstanding for its
    slot and id fails, whatever its status; the one asked for completes."""
    g = FakeGuest(maxcpus=3)
    h = fake_host(g)
    h.add(h.slots[1])
    for ev in g.events():
        h.on_event(ev)
    assert h.fig.adds == 1 and not h.pending, (vars(h.fig), h.pending)
    for status in (0, 0x80):
        h = fake_host(FakeGuest(maxcpus=3))
        fails(lambda: h.on_event({"event": "ACPI_DEVICE_OST", "data": {"info": {
            "slot": "2", "source": 1, "status": status, "device": "intruder"}}}),
            "an insertion nobody asked for", "no device_add of slot 2 (core 2) as 'intruder'")
    # during a device_add of another slot, and of the same slot under another id
    g = FakeGuest(maxcpus=3, unasked=[{"event": "ACPI_DEVICE_OST", "data": {"info": {
        "slot": "2", "source": 1, "status": 0}}}])
    h = fake_host(g)
    h.add(h.slots[1])
    fails(lambda: [h.on_event(ev) for ev in g.events()], "an insertion nobody asked for")
    g = FakeGuest(maxcpus=3)
    h = fake_host(g)
    h.add(h.slots[1])
    ev = g.events()[0]
    ev["data"]["info"]["device"] = "someone-else"
    fails(lambda: h.on_event(ev), "an insertion nobody asked for",
          "(device_add of slot 1 (core 1) as tq1-1 in flight)")


def test_torture_qmp_unasked_eject_report_is_a_problem():
    h = fake_host(FakeGuest(smp=2, maxcpus=3))
    fails(lambda: h.on_event({"event": "ACPI_DEVICE_OST", "data": {"info": {
        "slot": "1", "source": 3, "status": 0x84}}}), "an eject report for slot 1 (core 1), "
          "which nobody asked to remove")


def main():
    tap_main.run_tests(globals())


if __name__ == "__main__":
    main()
