#!/usr/bin/env python3
"""Turn `make -B -n V=1 all` output into compile_commands.json for editors.

Usage: make -B -n V=1 all | scripts/compile_commands.py > compile_commands.json
"""
import json
import os
import shlex
import sys

entries = []
root = os.getcwd()
for line in sys.stdin:
    line = line.strip()
    if not line.startswith("gcc") and "gcc " not in line.split(" -", 1)[0]:
        continue
    try:
        words = shlex.split(line)
    except ValueError:
        continue
    if not words or not words[0].endswith("gcc") or "-c" not in words:
        continue
    src = next((w for w in words if w.endswith((".c", ".S")) and not w.startswith("-")), None)
    if src:
        entries.append({"directory": root, "file": src, "arguments": words})
json.dump(entries, sys.stdout, indent=1)
sys.stdout.write("\n")
