#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-sim's upper bounds (bench/sim/main.cpp): no run is above a bound that
holds for it, and the bounds are what their definitions say, computed again
here, independently, on small trace files.

bound-period: the sum over periods of the accesses of each period's C most
accessed pages; it holds for policies that migrate only at period ends.
bound-budget: the least over W = 2, 4 .. 32 of the sum over windows of W
periods of the accesses of each window's C + W x B + (pages first touched in
it) most accessed pages; it holds for policies that promote at most B pages
per period.  Run by ctest as: sim_bound_test.py PATH/TO/cxlt-sim.  Prints TAP."""
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

SIM = sys.argv[1]
PERIOD_END = {"first-touch", "clock", "cxltier", "oracle-static", "oracle-window"}
BUDGETED = {"first-touch", "clock", "cxltier", "nb-tiering", "oracle-static"}



def sim(tmp, *args):
    out = os.path.join(tmp, "sim.json")
    p = subprocess.run([SIM, "--json", out, "--jobs", "2", *args], capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"cxlt-sim {' '.join(args)} failed:\n{p.stdout}{p.stderr}")
    with open(out) as f:
        return json.load(f)


def top(counts, keep):
    return sum(sorted(counts.values(), reverse=True)[:keep])


def bounds(acc, cap, budget, period):
    """(bound-period, bound-budget) hits, from the definitions."""
    per = sum(top(Counter(acc[s:s + period]), cap) for s in range(0, len(acc), period))
    best = None
    for w in (2, 4, 8, 16, 32):
        seen, hits = set(), 0
        for s in range(0, len(acc), w * period):
            win = acc[s:s + w * period]
            fresh = len(set(win) - seen)
            seen |= set(win)
            hits += top(Counter(win), cap + w * budget + fresh)
        best = hits if best is None else min(best, hits)
    return per, best


def fast_pages(npages, ratio):
    return int(npages * ratio + 0.5)


def run_checks(records, what):
    for r in records:
        at = f"{r['policy']} on {r['trace']} @ {r['fast_ratio']} ({what})"
        pol = r["policy"].split(":")[0]
        # What the simulator says holds must be what the policy is.
        check(f"bound-period holds for {at} iff it migrates only at period ends",
              r["bound_period_holds"] == (pol in PERIOD_END), r)
        if pol in BUDGETED:
            check(f"bound-budget holds for {at}", r["bound_budget_holds"], r)
        if r["bound_period_holds"]:
            check(f"{at} not above bound-period", r["ftaf"] <= r["bound_period_ftaf"],
                  f"{r['ftaf']} > {r['bound_period_ftaf']}")
        if r["bound_budget_holds"]:
            check(f"{at} not above bound-budget", r["ftaf"] <= r["bound_budget_ftaf"],
                  f"{r['ftaf']} > {r['bound_budget_ftaf']}")


with tempfile.TemporaryDirectory() as tmp:
    # A case small enough to work out by hand: 4 pages, C = 1, periods of 4.
    # Period 1 (1 2 1 2): 2 hits at best; period 2 (3 3 3 4): 3.  bound-budget,
    # B = 1: one window of 8 (W = 2, 4 ...): keep 1 + 2 + 4 = all pages.
    hand = os.path.join(tmp, "hand.trace")
    with open(hand, "w") as f:
        f.write("1\n2\n1\n2\n3\n3\n3\n4\n")
    d = sim(tmp, "--trace-file", hand, "--period", "4", "--ratios", "0.25")
    r = d["records"][0]
    check("hand case: bound-period 5/8", r["bound_period_ftaf"] == 5 / 8, r["bound_period_ftaf"])
    check("hand case: bound-budget 8/8", r["bound_budget_ftaf"] == 1.0, r["bound_budget_ftaf"])
    check("hand case: static oracle 3/8", r["oracle_static_ftaf"] == 3 / 8, r["oracle_static_ftaf"])

    # Random trace files: a drifting hot set, so that the bounds differ from
    # the static oracle and from each other, and uniform access, where
    # bound-budget is below bound-period.
    rng = random.Random(23)
    shapes = [(40, 30, 60, 0.8), (96, 64, 40, 0.8), (200, 120, 30, 0.8), (64, 64, 40, 0)]
    for t, (npages, period, nper, hot_share) in enumerate(shapes):
        acc, hot = [], rng.sample(range(npages), npages // 5)
        for i in range(period * nper):
            if i % (period * 2) == 0:
                hot[rng.randrange(len(hot))] = rng.randrange(npages)
            acc.append(rng.choice(hot) if rng.random() < hot_share else rng.randrange(npages))
        path = os.path.join(tmp, f"random{t}.trace")
        with open(path, "w") as f:
            f.write("".join(f"{0x7f0000 + p}\n" for p in acc))
        # The simulator renumbers pages by first appearance; counts do not care.
        distinct = len(set(acc))
        ratios = [0.125, 0.25, 0.5]
        d = sim(tmp, "--trace-file", path, "--period", str(period), "--budget-div", "8",
                "--ratios", ",".join(map(str, ratios)))
        for ratio in ratios:
            cap = fast_pages(distinct, ratio)
            per, bud = bounds(acc, cap, max(cap // 8, 1), period)
            rec = next(r for r in d["records"] if r["fast_ratio"] == ratio)
            at = f"random{t} ({distinct} pages, C = {cap}: {per / len(acc):.3f}, {bud / len(acc):.3f})"
            check(f"{at}: bound-period as defined", rec["bound_period_ftaf"] == per / len(acc),
                  f"{rec['bound_period_ftaf']} != {per / len(acc)}")
            check(f"{at}: bound-budget as defined", rec["bound_budget_ftaf"] == bud / len(acc),
                  f"{rec['bound_budget_ftaf']} != {bud / len(acc)}")
        run_checks(d["records"], f"random{t}")

    # Every tuning trace, small, every policy and three sizes.
    d = sim(tmp, "--pages", "512", "--periods", "96", "--ratios", "0.125,0.25,0.5",
            "--heldout", "off", "--policies",
            "first-touch,nb-tiering,clock,cxltier,cxltier:conf=2,oracle-static,oracle-window")
    run_checks(d["records"], "synthetic")

done()
