"""tests/harness/ - the test runner and what it is built on.

run_tests.py (make test, test-boot, test-repeat, test-matrix, torture) boots
the kernel's images and judges each boot; bench.py (make bench) does the same
for the benchmarks and their targets. Both boot through qemu.py (the one place
that builds QEMU's command line: make run and make debug too) and read KTAP
with ktap.py. test_ktap.py is the harness's own unit tests, on made-up logs,
run by tap_main.py, the one TAP runner of the host-side Python tests.

Scripts under tests/ import each other by folder ("from harness import
qemu"): each one run as a script puts tests/ on sys.path first.
"""
