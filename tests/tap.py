# SPDX-License-Identifier: GPL-2.0
"""TAP for the host tests written in Python (tests/bench, tests/policy): check() prints
one case, done() the plan, then exits non-zero when any case failed.  A test adds
tests/ to sys.path and imports it."""
import sys

_n = _failed = 0


def check(what, ok, detail=""):
    global _n, _failed
    _n += 1
    print(("ok" if ok else "not ok") + f" {_n} {what}" + ("" if ok else f" # {detail}"))
    _failed += not ok


def done():
    print(f"1..{_n}")
    sys.exit(1 if _failed else 0)
