"""tests/replay/ - deterministic torture runs after the fact.

torture_replay.py (make torture-replay, torture-shrink, torture-search)
runs a deterministic run again from its log, shrinks a failing one, or
searches seeds until one fails, through the harness's boots.
"""
