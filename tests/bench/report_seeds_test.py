#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-bench-report over several seeds (bench/run-guest --seeds N): each
configuration's record is its median run, with the medians, minimums and maximums
of its numbers over the seeds and each seed's in per_seed; a seed a row skipped is
left out of that row and said so; the goals say in how many seeds we were ahead.
Run by ctest as: report_seeds_test.py PATH/TO/cxlt-bench-report.  Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile

REPORT = sys.argv[1]
n = failed = 0


def check(what, ok, detail=""):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok") + f" {n} {what}" + ("" if ok else f" # {detail}"))
    failed += not ok


def span(ops, ftaf):
    return {"seconds": 40.0, "ops_per_s": ops, "ftaf": ftaf, "vmstat": {"pgmigrate_success": 10},
            "backend": None, "counters": {}, "pingpong_seen": 3, "moved_pages_seen": 7,
            "cpu_threads_pct": 1.5, "cpu_app_sys_pct": 0.5, "cpu_threads_ns": 1000,
            "fast_mb_mean": 15.0, "fast_free_mb_mean": 2.0}


def run_json(config, ops, ftaf):
    return {"config": config, "workload": {"backend": "anon", "locator": "move_pages",
                                           "pingpong_window_s": 10},
            "steady": span(ops, ftaf), "warmup": span(ops / 2, ftaf / 2),
            "ftaf_opt_same_dram": 0.9, "initial": {"ftaf": 0.1}, "populate_s": 1.0,
            "series": [{"t": 4.0, "ftaf": ftaf, "ops_per_s": ops, "fast_pages": 100,
                        "moved_seen": 1}]}


# seed -> config -> (ops/s, ftaf), or None: the row was skipped in that seed.
RUNS = {
    1: {"cxltier": (100.0, 0.5), "numab2": (150.0, 0.4), "dram": (1000.0, 1.0)},
    2: {"cxltier": (300.0, 0.7), "numab2": None, "dram": (1000.0, 1.0)},
    3: {"cxltier": (200.0, 0.6), "numab2": (400.0, 0.3), "dram": (1000.0, 1.0)},
}

with tempfile.TemporaryDirectory() as tmp:
    res = os.path.join(tmp, "results")
    for seed, rows in RUNS.items():
        d = os.path.join(res, f"seed-{seed}")
        os.makedirs(d)
        with open(os.path.join(d, "guest.json"), "w") as f:
            json.dump({"seed": seed, "size_mb": 64, "zipf": 0.99, "fast_mb": 16,
                       "dram_limit_mb": 40, "warmup_s": 20}, f)
        for c, v in rows.items():
            with open(os.path.join(d, c + ".json"), "w") as f:
                json.dump(run_json(c, *v) if v else {"config": c, "skipped": "row timeout"}, f)
            with open(os.path.join(d, c + ".setup.json"), "w") as f:
                json.dump({"dram_limit": "hugepages" if c != "dram" else "none"}, f)
    out = os.path.join(tmp, "guest.json")
    series = os.path.join(tmp, "series")
    p = subprocess.run([REPORT, "--results", res, "--json", out, "--series-dir", series,
                        "--configs", "cxltier,numab2,dram"], capture_output=True, text=True)
    check("the report runs over three seeds", p.returncode == 0, p.stderr)
    doc = json.load(open(out)) if p.returncode == 0 else {"records": [], "config": {}, "goals": []}
    rec = {r["config"]: r for r in doc["records"]}
    cx = rec.get("cxltier", {})
    check("the median of ops/s, with its minimum and maximum",
          (cx.get("ops_per_s"), cx.get("ops_per_s_min"), cx.get("ops_per_s_max")) == (200.0, 100.0, 300.0),
          str(cx.get("ops_per_s")))
    check("and of ftaf", (cx.get("ftaf"), cx.get("ftaf_min"), cx.get("ftaf_max")) == (0.6, 0.5, 0.7))
    plotted = open(os.path.join(series, "cxltier.dat")).read() if os.path.exists(os.path.join(series, "cxltier.dat")) else ""
    check("the record is the median run's (seed 3), its plotted series too",
          cx.get("seed") == 3 and "4.00 0.6000 200 100 1" in plotted, f"{cx.get('seed')} {plotted!r}")
    check("each seed's numbers in per_seed", [s.get("ops_per_s") for s in cx.get("per_seed", [])] == [100.0, 300.0, 200.0])
    check("rel_dram per seed, then its median", cx.get("rel_dram") == 0.2 and cx.get("rel_dram_max") == 0.3)
    nb = rec.get("numab2", {})
    check("a seed a row skipped is left out, and said so",
          nb.get("seeds") == [1, 3] and nb.get("ops_per_s") == 275.0 and
          nb.get("skipped_seeds") == [{"seed": 2, "skipped": "row timeout"}], json.dumps(nb.get("skipped_seeds")))
    check("the guest's record lists the seeds", doc["config"].get("seeds") == [1, 2, 3] and "seed" not in doc["config"])
    goal = [g for g in doc["goals"] if g["goal"] == "cxltier beats numab2 on ops_per_s and ftaf"]
    check("a goal says in how many seeds we were ahead",
          goal and "ahead on both in 0 of 2 seeds" in goal[0]["value"] and goal[0]["met"] is False,
          goal[0]["value"] if goal else "no goal")
    check("the table shows min-max", "100-300" in p.stdout and "0.500-0.700" in p.stdout and
          "medians over 3 seeds" in p.stdout, p.stdout)

    # One run as run-configs writes it (no seed folders): that run, min = max.
    one = os.path.join(res, "seed-1")
    p = subprocess.run([REPORT, "--results", one, "--json", out, "--configs", "cxltier,dram"],
                       capture_output=True, text=True)
    doc = json.load(open(out)) if p.returncode == 0 else {"records": []}
    rec = {r["config"]: r for r in doc["records"]}
    check("a folder of one run: its numbers, seeds [1]",
          p.returncode == 0 and rec.get("cxltier", {}).get("ops_per_s") == 100.0 and
          rec["cxltier"].get("seeds") == [1] and "medians over 1 seed " in p.stdout, p.stderr)

print(f"1..{n}")
sys.exit(1 if failed else 0)
