#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-sim's held-out regression flag (bench/sim/main.cpp): against the
stored baseline (bench/sim/heldout-baseline.json) the current core flags no
held-out trace, the committed program traces (bench/sim/traces, --corpus)
included, each compared with its own entry; against a copy where one trace
and size's ftaf is 0.01 higher, that one is flagged REGRESSION and a trace
raised by only 0.004 is not, a synthetic trace and a program trace alike.
Run by ctest as: sim_regression_test.py PATH/TO/cxlt-sim BASELINE TRACES.
Prints TAP."""
import glob
import json
import lzma
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

SIM, BASELINE, TRACES = sys.argv[1], sys.argv[2], sys.argv[3]


def corpus(tmp):
    """The committed traces, decompressed as bench/run-sim does."""
    d = os.path.join(tmp, "traces")
    for half in ("tuning", "heldout"):
        os.makedirs(os.path.join(d, half))
        for z in glob.glob(os.path.join(TRACES, half, "*.txt.xz")):
            with lzma.open(z) as f, open(os.path.join(d, half, os.path.basename(z)[:-3]), "wb") as o:
                o.write(f.read())
    return d


def heldout(tmp, baseline):
    out = os.path.join(tmp, "sim.json")
    p = subprocess.run([SIM, "--heldout", "only", "--baseline", baseline, "--json", out,
                        "--corpus", os.path.join(tmp, "traces")],
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
    corpus(tmp)
    programs = sorted(os.path.basename(z)[:-7] for z in glob.glob(os.path.join(TRACES, "heldout", "*.txt.xz")))
    check("there are held-out program traces", len(programs) >= 3, programs)
    stdout, h = heldout(tmp, BASELINE)
    check("the stored baseline is compared", h["baseline"]["compared"], h["baseline"])
    check("every held-out row has a baseline",
          h["rows"] and all(r["baseline_ftaf"] is not None for r in h["rows"]), h["rows"])
    rows_of = {r["trace"] for r in h["rows"]}
    check("every held-out program trace is in the results", set(programs) <= rows_of, rows_of)
    check("every row is compared with its own recording (none new or changed)",
          all(r.get("baseline_status") == "compared" for r in h["rows"]),
          [(r["trace"], r.get("baseline_status")) for r in h["rows"] if r.get("baseline_status") != "compared"])
    check("no regression against the stored baseline",
          not any(r["regression"] for r in h["rows"]) and not flagged_lines(stdout),
          flagged_lines(stdout))

    prog = [i for i, t in enumerate(base["traces"]) if t["trace"] in programs]
    for what, ri, ni in (("synthetic", 4, 8), ("program", prog[1], prog[0])):
        doc = json.loads(json.dumps(base))
        raised, nudged = doc["traces"][ri], doc["traces"][ni]
        raised["ftaf"] += 0.01
        nudged["ftaf"] += 0.004
        doctored = os.path.join(tmp, "doctored.json")
        with open(doctored, "w") as f:
            json.dump(doc, f)
        stdout, h = heldout(tmp, doctored)
        flagged = [(r["trace"], r["fast_ratio"]) for r in h["rows"] if r["regression"]]
        want = (raised["trace"], raised["fast_ratio"])
        check(f"{what}: {want} raised by 0.01 is the one regression in the results",
              flagged == [want], flagged)
        lines = flagged_lines(stdout)
        check(f"{what}: the table flags {want} alone",
              [l.split()[:2] for l in lines] == [[want[0], f"1/{round(1 / want[1])}"]], lines)
        check(f"{what}: the table counts one regression", "Regressions: 1." in stdout, stdout)

done()
