#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-sim --observe (bench/sim/main.cpp): with "adaptive" the sampled policies see
only the pages accessed in the daemon's observation window, which starts at a tenth
of the period and stays there while 10-50% of the placed pages are accessed in it;
with "period" (the default) they see the whole period.

The trace: periods of 2000 accesses; the first 200 of each go round 1900 pages
(C, first touched first, so the fast tier of 100 pages is theirs), the other
1800 to 50 pages (H) in turn.  Seeing whole periods, cxltier finds H hot and
promotes it: most accesses end up on the fast tier.  Seeing the window only, it
never sees H: H stays on the slow tier.

A second trace makes the window grow: after a first pass over C, each period
spends its first half on one page and its second half on H.  The window then
sees one page of about 1950, fewer than a tenth, and doubles until it reaches
H, which cxltier then promotes; a window that did not grow would never see it.  Run by ctest as:
sim_observe_test.py PATH/TO/cxlt-sim.  Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

SIM = sys.argv[1]
PERIOD, PERIODS, C, H, C_PER = 2000, 60, 1900, 50, 200


def sim(tmp, trace, *args):
    out = os.path.join(tmp, "sim.json")
    p = subprocess.run([SIM, "--json", out, "--jobs", "2", "--trace-file", trace,
                        "--period", str(PERIOD), "--ratios", str(100 / (C + H)),
                        "--policies", "cxltier", *args], capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"cxlt-sim {' '.join(args)} failed:\n{p.stdout}{p.stderr}")
    with open(out) as f:
        return json.load(f)


with tempfile.TemporaryDirectory() as tmp:
    acc, c_next = [], 0
    for _ in range(PERIODS):
        for _ in range(C_PER):
            acc.append(1000 + c_next)
            c_next = (c_next + 1) % C
        acc.extend(i % H for i in range(PERIOD - C_PER))
    trace = os.path.join(tmp, "window.trace")
    with open(trace, "w") as f:
        f.write("".join(f"{p}\n" for p in acc))

    whole = sim(tmp, trace)
    window = sim(tmp, trace, "--observe", "adaptive")
    bad = subprocess.run([SIM, "--trace-file", trace, "--observe", "sometimes"],
                         capture_output=True, text=True)
    check("--observe sometimes is refused", bad.returncode != 0 and "observe" in bad.stderr,
          bad.stderr)
    check("the JSON says what the policies saw",
          "adaptive" in window["config"]["sampling"] and "adaptive" not in whole["config"]["sampling"],
          (whole["config"]["sampling"], window["config"]["sampling"]))
    for pol in ("cxltier",):
        w = next(r for r in whole["records"] if r["policy"] == pol)
        a = next(r for r in window["records"] if r["policy"] == pol)
        check(f"{pol}, whole periods: H promoted (ftaf {w['ftaf']:.3f} > 0.5)",
              w["ftaf"] > 0.5 and w["promotions"] >= H, w)
        check(f"{pol}, adaptive window: H never seen (ftaf {a['ftaf']:.3f} < 0.05)",
              a["ftaf"] < 0.05, a)

    acc = [1000 + c for c in range(C)]
    for _ in range(PERIODS):
        acc.extend([5000] * (PERIOD // 2))
        acc.extend(i % H for i in range(PERIOD // 2))
    trace = os.path.join(tmp, "grow.trace")
    with open(trace, "w") as f:
        f.write("".join(f"{p}\n" for p in acc))
    grown = next(r for r in sim(tmp, trace, "--observe", "adaptive")["records"]
                 if r["policy"] == "cxltier")
    check(f"cxltier, adaptive window that must grow: H promoted (ftaf {grown['ftaf']:.3f} > 0.7)",
          grown["ftaf"] > 0.7 and grown["promotions"] > H, grown)

done()
