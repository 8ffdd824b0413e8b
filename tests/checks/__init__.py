"""tests/checks/ - host checks of the sources: the tree read as data.

check_format.py (the C sources keep .clang-format), check_deferred.py (the
workqueue is the only deferred-work mechanism: the code and the table in
docs/workqueue.md agree), check_shell_commands.py (README.md and
docs/guide.md list the shell's commands) and test_trace2json.py (the
pictures scripts/trace2json.py draws, docs/*.svg among them, read cleanly).
make test runs each (tests/harness/run_tests.py, run_check()); none boots.
"""
