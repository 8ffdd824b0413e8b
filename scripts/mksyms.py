#!/usr/bin/env python3
"""Turn `nm -n -S --defined-only` output into the kernel's symbol table.

Usage: mksyms.py NM_OUTPUT_FILE > ksyms.S     (NM_OUTPUT_FILE may be /dev/null
for the first link pass, which carries an empty table).

Only text symbols (t/T/w/W in .text) are kept: backtraces need functions,
and text addresses do not move when the table's size changes between link
passes because .ksyms comes after .text (see linker.ld). The layout must
match kernel/ksyms.c.
"""
import sys


def main():
    syms = {}
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4:
                addr, size, kind, name = parts
            elif len(parts) == 3:
                addr, kind, name = parts
                size = "0"
            else:
                continue
            if kind not in "tTwW":
                continue
            a = int(addr, 16)
            # Keep one name per address; prefer the global one.
            if a not in syms or kind.isupper():
                syms[a] = (int(size, 16), name)
    out = ['\t.section .ksyms, "a"', "\t.balign 8"]
    out += ["\t.globl ksym_count", "ksym_count:", "\t.quad %d" % len(syms)]
    out += ["\t.globl ksym_addr", "ksym_addr:"]
    out += ["\t.quad 0x%x" % a for a in sorted(syms)]
    out += ["\t.globl ksym_size", "ksym_size:"]
    out += ["\t.long %d" % min(syms[a][0], 0xFFFFFFFF) for a in sorted(syms)]
    out += ["\t.globl ksym_name", "ksym_name:"]
    off = 0
    names = []
    for a in sorted(syms):
        out.append("\t.long %d" % off)
        names.append(syms[a][1])
        off += len(syms[a][1]) + 1
    out += ["\t.globl ksym_strtab", "ksym_strtab:"]
    out += ['\t.asciz "%s"' % n for n in names]
    out.append('\t.section .note.GNU-stack, "", @progbits')
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
