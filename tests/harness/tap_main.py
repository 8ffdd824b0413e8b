"""The one TAP runner of the host-side Python test scripts (test_*.py):
every callable named test_* in the calling module's globals, in order,
"ok N - name" or "not ok N - name" with the end of the traceback, then the
plan; the exit status says whether all passed."""
import sys
import traceback


def run_tests(namespace):
    tests = [(k, v) for k, v in namespace.items() if k.startswith("test_") and callable(v)]
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print("ok %d - %s" % (i, name))
        except Exception:   # an assertion, or a bug in the code under test
            failed += 1
            print("not ok %d - %s" % (i, name))
            for line in traceback.format_exc().strip().splitlines()[-4:]:
                print("    # " + line)
    print("1..%d" % len(tests))
    sys.exit(1 if failed else 0)
