#!/usr/bin/env python3
"""scripts/ktest_manifest.py - the kernel's test suites, read from baton.elf.

  ktest_manifest.py build/baton.elf > build/ktest-manifest.json

Reads the suite table the kernel itself runs (the .ktest_suites records
between __ktest_start and __ktest_end, kernel/tools/ktest.h) out of the
linked image, so that the test runner knows which suites and which cases
each boot must report, without a hand-written list that could fall behind:

  {"suites": [{"name": "kmalloc", "explicit": false,
               "cases": ["sizes_and_alignment", ...]}, ...]}

in the kernel's order. The layout read is struct ktest_suite's (name,
cases, nr_cases, explicit_only) and struct ktest_case's (name first); it
is checked against the sizes of the __ktest_suite_* and __ktest_cases_*
symbols, and any disagreement stops the build. Python 3 stdlib only.
"""
import json
import struct
import sys


class ElfError(Exception):
    pass


class Elf:
    """Just enough of an ELF64 little-endian file: sections and symbols."""

    def __init__(self, data):
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ElfError("not a 64-bit little-endian ELF file")
        self.data = data
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        self.sections = []
        for i in range(shnum):
            (name, typ, _flags, addr, off, size, link, _info, _align,
             entsize) = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            self.sections.append({"name": name, "type": typ, "addr": addr, "off": off,
                                  "size": size, "link": link, "entsize": entsize})
        strtab = self.sections[shstrndx]
        for s in self.sections:
            s["name"] = self._str(strtab["off"], s["name"])
        self.symbols = {}
        for s in self.sections:
            if s["type"] != 2:      # SHT_SYMTAB
                continue
            names = self.sections[s["link"]]
            for off in range(s["off"], s["off"] + s["size"], s["entsize"]):
                name, _info, _other, _shndx, value, size = struct.unpack_from("<IBBHQQ", data, off)
                self.symbols[self._str(names["off"], name)] = (value, size)

    def _str(self, base, off):
        end = self.data.index(b"\0", base + off)
        return self.data[base + off:end].decode()

    def read(self, addr, n):
        """n bytes at virtual address addr."""
        for s in self.sections:
            if s["type"] != 8 and s["addr"] and s["addr"] <= addr and addr + n <= s["addr"] + s["size"]:
                off = s["off"] + addr - s["addr"]
                return self.data[off:off + n]
        raise ElfError("address %#x is in no section with contents" % addr)

    def u64(self, addr):
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def cstr(self, addr):
        out = b""
        while b"\0" not in out:
            out += self.read(addr + len(out), 1)
        return out[:out.index(b"\0")].decode()


SUITE_SIZE = 24     # struct ktest_suite: name, cases, nr_cases (u32), explicit_only (bool)


def manifest(elf):
    try:
        start, end = elf.symbols["__ktest_start"][0], elf.symbols["__ktest_end"][0]
    except KeyError as e:
        raise ElfError("no symbol %s: is this baton.elf?" % e)
    records = [v for k, v in elf.symbols.items() if k.startswith("__ktest_suite_")]
    if (end - start) % SUITE_SIZE or (end - start) // SUITE_SIZE != len(records) or \
            any(size != SUITE_SIZE for _, size in records):
        raise ElfError("the .ktest_suites table (%d bytes, %d __ktest_suite_* symbols) does not "
                       "hold %d-byte records: struct ktest_suite changed; update %s" % (
                           end - start, len(records), SUITE_SIZE, __file__))
    suites = []
    for addr in range(start, end, SUITE_SIZE):
        name_p, cases_p, nr, expl = struct.unpack("<QQIB3x", elf.read(addr, SUITE_SIZE))
        name = elf.cstr(name_p)
        cases_sym = elf.symbols.get("__ktest_cases_" + name)
        if not cases_sym or cases_sym[0] != cases_p or not nr or cases_sym[1] % nr:
            raise ElfError("suite %s: its cases (%s) are not an array of %d records at %#x" % (
                name, cases_sym, nr, cases_p))
        stride = cases_sym[1] // nr
        cases = [elf.cstr(elf.u64(cases_p + i * stride)) for i in range(nr)]
        suites.append({"name": name, "explicit": bool(expl), "cases": cases})
    return {"suites": suites}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ktest_manifest.py baton.elf > ktest-manifest.json")
    try:
        with open(sys.argv[1], "rb") as f:
            m = manifest(Elf(f.read()))
    except (OSError, ElfError, struct.error, ValueError) as e:
        sys.exit("ktest_manifest.py: %s: %s" % (sys.argv[1], e))
    json.dump(m, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
