#!/usr/bin/env python3
"""tests/harness/qemu.py - boot baton in QEMU; the one place that builds QEMU's command line.

Used by `make run`, `make debug` and the test runner (tests/harness/run_tests.py).

  Machine(iso, smp=..., mem=..., machine=..., cmdline=..., workdir=..., firmware=...)
      .start()               launch QEMU headless; the serial port is QEMU's
                             stdin/stdout, logged to workdir/NAME.log
      .expect(regex, t)      wait until the serial output matches
      .send(data)            type on the serial port (str as UTF-8, or bytes), in
                             chunks; raises QemuError if the guest reads nothing
                             for SEND_STALL seconds, QEMU exits, or the deadline passes
      .deadline              time.time() after which expect() and send() give up
                             (set by the caller: the boot's timeout)
      .exited()              QEMU's exit status if it has exited, else None
      .hmp(command)          a human monitor command through QMP ("info registers")
      .wait(timeout)         wait for QEMU to exit; kill it at the timeout
      .qmp                   a QMP client (QEMU's machine protocol), for
                             queries and, later, vCPU hot-plug
      .output                everything the serial port printed so far

The kernel command line reaches GRUB on a small FAT disk holding
cmdline.cfg (see scripts/grub.cfg), so one ISO serves every boot.

firmware="bios" (the default) boots through QEMU's SeaBIOS; "uefi" through
OVMF (Debian package ovmf): its code read-only, and a fresh copy of its
variable store per boot (workdir/NAME.OVMF_VARS.fd), so no boot sees what
another wrote. It works on q35 and on pc. The ISO must have been made with
GRUB's EFI build installed (grub-efi-amd64-bin), which grub-mkrescue adds
beside the BIOS one; a boot checks that and says so.

The serial port is QEMU's stdio chardev on pipes, not a terminal: no line
discipline and (without -nographic) no Ctrl-A multiplexer, so every byte
value sent reaches the guest's UART unchanged, 0x00, 0x03 and 0x1a too.

QEMU exit statuses from the kernel's isa-debug-exit writes (keep in step
with drivers/qemu_exit.h): 33 tests passed, 35 a test failed, 37 panic.
"""
import argparse
import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

EXIT_SUCCESS = (0x10 << 1) | 1
EXIT_FAILURE = (0x11 << 1) | 1
EXIT_PANIC = (0x12 << 1) | 1

# Serial input: written SEND_CHUNK bytes at a time; if the guest takes none
# of it for SEND_STALL seconds, send() fails instead of blocking for ever.
SEND_CHUNK = 256
SEND_STALL = 30

FIRMWARES = ("bios", "uefi")
OVMF_DIR = "/usr/share/OVMF"
OVMF_CODE = "OVMF_CODE_4M.fd"
OVMF_VARS = "OVMF_VARS_4M.fd"

CMDLINE_ALLOWED = re.compile(r'^[A-Za-z0-9_.,:=/+@%-]*( [A-Za-z0-9_.,:=/+@%-]*)*$')


class QemuError(Exception):
    pass


class QMPError(QemuError):
    """A QMP command's error reply: its class ("GenericError",
    "DeviceNotFound", ...) and text, for callers that expect one error and
    no other (tests/vm/torture_qmp.py's boot-CPU probe)."""

    def __init__(self, command, error):
        self.command = command
        self.error_class, self.desc = error.get("class"), error.get("desc")
        super().__init__("QMP %s: %s" % (command, self.desc))


# QEMU 7.2 under TCG corrupts its own heap after a vCPU unplug (docs/vcpu-hotplug.md), and
# glibc may then abort QEMU as it exits: its message lands in the log (QEMU's stderr).
HEAP_ABORT = re.compile(r"^(malloc\(\)|free\(\)|double free or corruption|munmap_chunk\(\)|"
                        r"corrupted size)[^\n]*$", re.M)


def unplug_abort_at_exit(log, status):
    """Did QEMU die of that bug after the guest had powered down, having ejected a
    vCPU? Then everything the guest did was seen and judged before: QEMU's
    death says nothing of the guest (a note, not a failure). Any other death,
    or this one before the power-down, still fails."""
    end = log.rfind("] Power down.")
    return (status is not None and status < 0 and end >= 0 and
            "offline and ejected" in log[:end] and HEAP_ABORT.search(log[end:]) is not None)


def make_cmdline_disk(path, cmdline):
    """A 1.44 MB FAT image with cmdline.cfg, read by GRUB (scripts/grub.cfg)."""
    if not CMDLINE_ALLOWED.match(cmdline):
        raise QemuError("kernel command line %r: use only letters, digits, spaces and "
                        "_.,:=/+@%%- (no quotes)" % cmdline)
    cfg = path + ".cfg"
    with open(cfg, "w") as f:
        f.write("set baton_cmdline='%s'\n" % cmdline)
    if os.path.exists(path):
        os.unlink(path)
    for argv in (["mformat", "-i", path, "-C", "-f", "1440", "::"],
                 ["mcopy", "-i", path, cfg, "::/cmdline.cfg"]):
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode:
            raise QemuError("%s failed: %s" % (" ".join(argv), r.stderr.strip()))
    os.unlink(cfg)


def iso_has_uefi_boot(iso):
    """Whether the ISO's El Torito boot catalog has an EFI entry (platform
    0xEF): grub-mkrescue adds one when GRUB's EFI build is installed."""
    try:
        with open(iso, "rb") as f:
            f.seek(17 * 2048)           # the boot record volume descriptor
            brvd = f.read(2048)
            if brvd[:7] != b"\x00CD001\x01" or not brvd[7:30].startswith(b"EL TORITO"):
                return False
            f.seek(int.from_bytes(brvd[0x47:0x4b], "little") * 2048)
            catalog = f.read(2048)
    except OSError:
        return False
    if catalog[1] == 0xEF:              # the validation entry's platform
        return True
    # Section headers (0x90, or 0x91 for the last) name their platform.
    return any(catalog[i] in (0x90, 0x91) and catalog[i + 1] == 0xEF
               for i in range(64, len(catalog) - 32, 32))


def uefi_prepare(iso, vars_path, ovmf_dir=None, check_iso=True):
    """Check what a UEFI boot needs and copy a fresh OVMF variable store to
    vars_path; return the OVMF code file. QemuError, saying what to do, if
    something is missing. ovmf_dir: OVMF_DIR unless given."""
    ovmf_dir = ovmf_dir or OVMF_DIR
    code, store = os.path.join(ovmf_dir, OVMF_CODE), os.path.join(ovmf_dir, OVMF_VARS)
    missing = [f for f in (code, store) if not os.path.exists(f)]
    if missing:
        raise QemuError("UEFI boot: OVMF firmware missing (%s): install the Debian package "
                        "ovmf (make deps, i.e. scripts/deps.sh, does)" % ", ".join(missing))
    if check_iso and not iso_has_uefi_boot(iso):
        raise QemuError("UEFI boot: %s has no UEFI boot entry (GRUB's EFI build, package "
                        "grub-efi-amd64-bin, was missing when it was made): run make deps, "
                        "then make iso" % iso)
    shutil.copyfile(store, vars_path)
    return code


def qemu_argv(iso, smp="1", mem="512M", machine="q35", accel="tcg", cmdline_disk=None,
              debug_exit=True, qmp_path=None, gdb=False, extra=(), kernel=None,
              firmware="bios", ovmf_code=None, ovmf_vars=None):
    """QEMU's command line. firmware "uefi" needs ovmf_code and ovmf_vars
    (the per-boot copy of the variable store): see uefi_prepare()."""
    if firmware not in FIRMWARES:
        raise QemuError("firmware %r: use bios or uefi" % firmware)
    argv = ["qemu-system-x86_64", "-M", machine, "-accel", accel, "-smp", str(smp),
            "-m", str(mem), "-cpu", "qemu64", "-no-reboot"]
    if firmware == "uefi":
        if not (ovmf_code and ovmf_vars):
            raise QemuError("firmware uefi: the OVMF code and variable store are not given")
        argv += ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file=%s" % ovmf_code,
                 "-drive", "if=pflash,format=raw,unit=1,file=%s" % ovmf_vars]
    if kernel:
        # QEMU's own (Multiboot 1) loader: only to test that baton refuses it.
        argv += ["-kernel", kernel]
    else:
        argv += ["-drive", "file=%s,media=cdrom,if=ide,index=0,readonly=on" % iso,
                 "-boot", "d"]
    if cmdline_disk:
        argv += ["-drive", "file=%s,format=raw,if=ide,index=1" % cmdline_disk]
    if debug_exit:
        argv += ["-device", "isa-debug-exit,iobase=0xf4,iosize=4"]
    if qmp_path:
        argv += ["-qmp", "unix:%s,server=on,wait=off" % qmp_path]
    if gdb:
        argv += ["-s", "-S"]
    return argv + list(extra)


class QMP:
    """A minimal QMP client: capabilities negotiation and commands."""

    def __init__(self, path, timeout=10):
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise QemuError("QMP socket %s did not open" % path)
                time.sleep(0.05)
        self.timeout = timeout
        self.sock.settimeout(timeout)
        self.buf = b""
        self.events = []
        greeting = self._read()
        while "event" in greeting:      # seen: a RESUME event before the greeting
            self.events.append(greeting)
            greeting = self._read()
        if "QMP" not in greeting:
            raise QemuError("unexpected QMP greeting %r" % greeting)
        self.execute("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise QemuError("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "event" in reply:
                self.events.append(reply)
                continue
            if "error" in reply:
                raise QMPError(command, reply["error"])
            return reply.get("return")

    def wait_event(self, match, deadline):
        """The first event, kept or new, for which match(event) holds;
        removed from self.events. None if none came by deadline (time.time())."""
        while True:
            for e in self.events:
                if match(e):
                    self.events.remove(e)
                    return e
            left = deadline - time.time()
            if left <= 0:
                return None
            self.sock.settimeout(min(left, 1.0))
            try:
                self.events.append(self._read())
            except socket.timeout:
                pass
            finally:
                self.sock.settimeout(self.timeout)

    def close(self):
        self.sock.close()


# Deterministic mode (docs/stress-testing.md): one virtual CPU at a time,
# guest time counted in instructions (8 ns each), idle time skipped, a
# guest-time RTC from a fixed date, RDRAND from -seed. The kernel is told
# with deterministic=SEED.
DETERMINISTIC_ACCEL = "tcg,thread=single"
DETERMINISTIC_ICOUNT = "shift=3,sleep=off"
DETERMINISTIC_RTC = "base=2026-01-01T00:00:00,clock=vm"


def deterministic_extra(seed):
    """QEMU's arguments for a deterministic run with this seed (beside
    accel=DETERMINISTIC_ACCEL and Machine(serial_file=True))."""
    return ["-icount", DETERMINISTIC_ICOUNT, "-rtc", DETERMINISTIC_RTC, "-seed", str(seed)]


class Machine:
    """serial_file: the guest's serial output goes straight to the log file
    (QEMU writes a file without ever blocking: a pipe the harness drains
    late would hold the guest's UART back for a host-timed while, which a
    deterministic run must not see); header: a line written to the log
    before QEMU's output. Serial input is then not connected."""

    def __init__(self, iso, name="baton", smp="1", mem="512M", machine="q35", accel="tcg",
                 cmdline="", workdir=None, qmp=False, extra=(), kernel=None, firmware="bios",
                 serial_file=False, header=None):
        self.iso = iso
        self.firmware = firmware
        self.name = name
        self.smp, self.mem, self.machine, self.accel = smp, mem, machine, accel
        self.cmdline = cmdline
        self.workdir = workdir or tempfile.mkdtemp(prefix="baton-")
        self.use_qmp = qmp
        self.extra = extra
        self.kernel = kernel
        self.serial_file = serial_file
        self.header = header
        self.log_path = os.path.join(self.workdir, name + ".log")
        self.proc = None
        self.qmp = None
        self._out = bytearray()
        self._cond = threading.Condition()
        self._reader = None
        self.deadline = None        # time.time() after which expect()/send() give up

    def _left(self, timeout):
        """timeout, cut to what is left before the deadline."""
        if self.deadline is None:
            return timeout
        return min(timeout, self.deadline - time.time())

    def exited(self):
        """QEMU's exit status once it has exited (and its output is all read), else None."""
        if self.proc is None:
            return None
        status = self.proc.poll()
        if status is not None and self._reader is not None:
            self._reader.join(5)
        return status

    @property
    def output(self):
        with self._cond:
            return self._out.decode("utf-8", "replace")

    def start(self):
        os.makedirs(self.workdir, exist_ok=True)
        disk = os.path.join(self.workdir, self.name + ".cmdline.img")
        make_cmdline_disk(disk, self.cmdline)
        ovmf_code = ovmf_vars = None
        if self.firmware == "uefi":
            ovmf_vars = os.path.join(self.workdir, self.name + ".OVMF_VARS.fd")
            ovmf_code = uefi_prepare(self.iso, ovmf_vars, check_iso=not self.kernel)
        qmp_path = None
        if self.use_qmp:
            # Unix socket paths are short (108 bytes): keep it in /tmp.
            self._qmp_dir = tempfile.mkdtemp(prefix="baton-qmp-")
            qmp_path = os.path.join(self._qmp_dir, "qmp.sock")
        argv = qemu_argv(self.iso, self.smp, self.mem, self.machine, self.accel, disk,
                         qmp_path=qmp_path, extra=self.extra, kernel=self.kernel,
                         firmware=self.firmware, ovmf_code=ovmf_code, ovmf_vars=ovmf_vars)
        argv += ["-display", "none", "-monitor", "none"]
        if self.serial_file:
            argv += ["-chardev", "file,id=serial0,path=%s,append=on" % self.log_path,
                     "-serial", "chardev:serial0"]
        else:
            argv += ["-serial", "stdio"]
        self.argv = argv
        self._log = open(self.log_path, "wb")
        if self.header:
            self._log.write(self.header.encode() + b"\n")
            self._log.flush()
            with self._cond:
                self._out += self.header.encode() + b"\n"
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        target = self._tail_serial if self.serial_file else self._read_serial
        self._reader = threading.Thread(target=target, daemon=True)
        self._reader.start()
        if qmp_path:
            self.qmp = QMP(qmp_path)
        return self

    def _read_serial(self):
        while True:
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                break
            self._log.write(chunk)
            self._log.flush()
            with self._cond:
                self._out += chunk
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _tail_serial(self):
        """serial_file: follow the log file QEMU appends to; QEMU's own
        messages (stdout) go to the output, not to the log."""
        os.set_blocking(self.proc.stdout.fileno(), False)
        with open(self.log_path, "rb") as f:
            f.seek(len(self.header.encode()) + 1 if self.header else 0)
            while True:
                done = self.proc.poll() is not None
                chunk = f.read(65536)
                try:
                    msgs = self.proc.stdout.read1(65536) or b""
                except (BlockingIOError, ValueError):
                    msgs = b""
                if chunk or msgs:
                    with self._cond:
                        self._out += chunk + msgs
                        self._cond.notify_all()
                    continue
                if done:
                    break
                time.sleep(0.05)
        with self._cond:
            self._cond.notify_all()

    def expect(self, pattern, timeout):
        """Wait until the serial output (from the start) matches pattern."""
        return self.expect_from(0, pattern, timeout)

    def mark(self):
        """A position in the serial output, for expect_from()."""
        with self._cond:
            return len(self._out)

    def expect_from(self, mark, pattern, timeout, flags=0):
        """Like expect(), but only in the output after mark."""
        rx = re.compile(pattern, flags)
        deadline = time.time() + self._left(timeout)
        with self._cond:
            while True:
                m = rx.search(self._out[mark:].decode("utf-8", "replace"))
                if m:
                    return m
                left = deadline - time.time()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    return None
                self._cond.wait(min(left, 0.5))

    def send(self, data, stall=SEND_STALL):
        """Write to the guest's serial input, SEND_CHUNK bytes at a time.
        QEMU reads only as fast as the guest's UART FIFO empties, so a write
        can wait; the reader thread keeps draining the guest's output
        meanwhile (QEMU stops reading while its own output is blocked).
        Raises QemuError, naming how far it got, if the guest takes nothing
        for `stall` seconds, if QEMU exits, or at the deadline."""
        data = data.encode() if isinstance(data, str) else bytes(data)
        fd = self.proc.stdin.fileno()
        os.set_blocking(fd, False)
        sent, moved = 0, time.time()
        while sent < len(data):
            status = self.proc.poll()
            if status is not None:
                raise QemuError("QEMU exited (status %s) with %d of %d bytes of serial "
                                "input unsent" % (status, len(data) - sent, len(data)))
            now = time.time()
            if self.deadline is not None and now >= self.deadline:
                raise QemuError("the boot's time ran out with %d of %d bytes of serial input "
                                "unsent" % (len(data) - sent, len(data)))
            if now - moved >= stall:
                raise QemuError("serial input stalled: the guest took none of it for %d s "
                                "(%d of %d bytes sent)" % (stall, sent, len(data)))
            _, writable, _ = select.select([], [fd], [], 0.2)
            if not writable:
                continue
            try:
                n = os.write(fd, data[sent:sent + SEND_CHUNK])
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError) as e:
                raise QemuError("writing to the serial input failed: %s (%d of %d bytes "
                                "sent)" % (e, sent, len(data)))
            if n:
                sent += n
                moved = time.time()

    def hmp(self, command):
        """A human monitor command through QMP (e.g. "info registers -a")."""
        return self.qmp.execute("human-monitor-command", **{"command-line": command})

    def wait(self, timeout, nmi_on_timeout=False):
        """QEMU's exit status, or None if it had to be killed at the timeout.
        With nmi_on_timeout (and QMP), a hung guest first gets an NMI, so
        that its log shows what every CPU and thread was doing.
        None at once if QEMU never started (start() raised)."""
        if self.proc is None:
            return None
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            if nmi_on_timeout and self.qmp:
                try:
                    self.qmp.execute("inject-nmi")
                    self.proc.wait(3)
                except (QemuError, OSError, subprocess.TimeoutExpired):
                    pass
            self.kill()
            status = None
        self._reader.join(5)
        self._log.close()
        if self.qmp:
            self.qmp.close()
            shutil.rmtree(self._qmp_dir, ignore_errors=True)
        return status

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description="Boot baton in QEMU.")
    ap.add_argument("mode", choices=["run", "debug"])
    ap.add_argument("--iso", required=True)
    ap.add_argument("--elf")
    ap.add_argument("--smp", default="4")
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--machine", default="q35")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--cmdline", default="")
    ap.add_argument("--firmware", default="bios",
                    help="bios (SeaBIOS) or uefi (OVMF)")
    a = ap.parse_args()
    work = os.path.join(os.path.dirname(os.path.abspath(a.iso)), "run")
    os.makedirs(work, exist_ok=True)
    disk = os.path.join(work, "cmdline.img")
    fw = {"firmware": a.firmware}
    try:
        if a.firmware not in FIRMWARES:
            raise QemuError("FIRMWARE=%s: use bios or uefi" % a.firmware)
        make_cmdline_disk(disk, a.cmdline)
        if a.firmware == "uefi":
            fw["ovmf_vars"] = os.path.join(work, "OVMF_VARS.fd")
            fw["ovmf_code"] = uefi_prepare(a.iso, fw["ovmf_vars"])
    except QemuError as e:
        sys.exit("qemu.py: %s" % e)
    if a.mode == "run":
        # -nographic: serial and QEMU monitor on this terminal; Ctrl-A X quits.
        argv = qemu_argv(a.iso, a.smp, a.mem, a.machine, a.accel, disk, debug_exit=False, **fw)
        argv += ["-nographic"]
        print("baton: %s\n(quit with Ctrl-A X)" % " ".join(argv), flush=True)
        os.execvp(argv[0], argv)
    argv = qemu_argv(a.iso, a.smp, a.mem, a.machine, a.accel, disk, debug_exit=False, gdb=True,
                     **fw)
    argv += ["-display", "none", "-serial", "file:%s" % os.path.join(work, "debug-serial.log"),
             "-monitor", "none"]
    qemu = subprocess.Popen(argv)
    print("baton: QEMU waits for GDB on :1234; serial output goes to %s/debug-serial.log" % work)
    gdb = ["gdb", "-q", a.elf, "-ex", "set pagination off",
           "-ex", "target remote localhost:1234", "-ex", "hbreak kmain", "-ex", "continue"]
    gdb_helpers = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                               "scripts", "gdb", "baton.py")
    if os.path.exists(gdb_helpers):
        gdb[3:3] = ["-x", gdb_helpers]
    try:
        subprocess.call(gdb)
    finally:
        qemu.kill()


if __name__ == "__main__":
    main()
