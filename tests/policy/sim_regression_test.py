#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-sim's held-out regression flag (bench/sim/main.cpp): against the
stored baseline (bench/sim/heldout-baseline.json) the current core flags no
held-out trace; against a copy where one trace and size's ftaf is 0.01 higher,
that one is flagged REGRESSION and a trace raised by only 0.004 is not.
Run by ctest as: sim_regression_test.py PATH/TO/cxlt-sim BASELINE.  Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

SIM, BASELINE = sys.argv[1], sys.argv[2]



def heldout(tmp, baseline):
    out = os.path.join(tmp, "sim.json")
    p = subprocess.run([SIM, "--heldout", "only", "--baseline", baseline, "--json", out],
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"cxlt-sim failed:\n{p.stdout}{p.stderr}")
    with open(out) as f:
        return p.stdout, json.load(f)["heldout"]


def flagged_lines(stdout):
    return [l for l in stdout.splitlines() if l.rstrip().endswith("REGRESSION")]


with open(BASELINE) as f:
    base = json.load(f)

with tempfile.TemporaryDirectory() as tmp:
    stdout, h = heldout(tmp, BASELINE)
    check("the stored baseline is compared", h["baseline"]["compared"], h["baseline"])
    check("every held-out row has a baseline",
          h["rows"] and all(r["baseline_ftaf"] is not None for r in h["rows"]), h["rows"])
    check("no regression against the stored baseline",
          not any(r["regression"] for r in h["rows"]) and not flagged_lines(stdout),
          flagged_lines(stdout))

    raised, nudged = base["traces"][4], base["traces"][8]
    raised["ftaf"] += 0.01
    nudged["ftaf"] += 0.004
    doctored = os.path.join(tmp, "doctored.json")
    with open(doctored, "w") as f:
        json.dump(base, f)
    stdout, h = heldout(tmp, doctored)
    flagged = [(r["trace"], r["fast_ratio"]) for r in h["rows"] if r["regression"]]
    want = (raised["trace"], raised["fast_ratio"])
    check(f"{want} raised by 0.01 is the one regression in the results", flagged == [want],
          flagged)
    lines = flagged_lines(stdout)
    check(f"the table flags {want} alone",
          [l.split()[:2] for l in lines] == [[want[0], f"1/{round(1 / want[1])}"]], lines)
    check("the table counts one regression", "Regressions: 1." in stdout, stdout)

done()
