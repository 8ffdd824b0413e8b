"""tests/vm/ - what drives a booted guest from outside, as a user or a hypervisor would.

shell_tests.py types at the serial shell (and drives GDB and the trace
tools); vcpu_hotplug_tests.py adds and removes vCPUs through QMP while the
shell looks; torture_qmp.py (make torture-qmp) does that at random under the
kernel's torture. The harness's boots hand each a started qemu.Machine.
"""
