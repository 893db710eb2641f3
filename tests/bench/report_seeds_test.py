#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-bench-report over several seeds (bench/run-guest --seeds N): each
configuration's record is its median run, with the medians, minimums and maximums
of its numbers over the seeds and each seed's in per_seed; a seed a row skipped is
left out of that row and said so; the goals say in how many seeds we were ahead.
The real programs' rows (folder PROGRAM of each seed) the same way, by run time.
Run by ctest as: report_seeds_test.py PATH/TO/cxlt-bench-report.  Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

REPORT = sys.argv[1]



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

    # A real program's rows (folder liblinear of each seed): by run time.
    # The daemon's counters over 40 s: 5% of a CPU, 1% of it sampling and policy.
    DAEMON = {"cpu_ns": 2_000_000_000, "arm_ns": 200_000_000, "harvest_ns": 100_000_000,
              "decide_ns": 100_000_000, "move_ns": 1_600_000_000}
    PROG_RUNS = {1: {"cxltier": 60.0, "numab2-tuned": 50.0, "dram": 30.0},
                 2: {"cxltier": 40.0, "numab2-tuned": 45.0, "dram": 30.0},
                 3: {"cxltier": 50.0, "numab2-tuned": None, "dram": 30.0}}
    for seed, rows in PROG_RUNS.items():
        d = os.path.join(res, f"seed-{seed}", "liblinear")
        os.makedirs(d)
        for c, t in rows.items():
            run = {"config": c, "program": "liblinear", "command": ["liblinear-train"],
                   "workload": {"backend": "anon", "locator": "move_pages"}, "exit_status": 0,
                   "runtime_s": t, "cpu_user_s": t, "cpu_sys_s": 1.0,
                   "steady": dict(span(0, 0), dram_frac=30.0 / t, resident_mb_mean=80.0,
                                  interrupts={"TLB": int(t), "LOC": 1000},
                                  counters=DAEMON if c == "cxltier" else {}),
                   "runner": {"max_rss_mb": 3.0, "cpu_s": t / 100, "pages_slow": 0},
                   "series": []} if t else {"config": c, "skipped": "row timeout"}
            with open(os.path.join(d, c + ".json"), "w") as f:
                json.dump(run, f)
            with open(os.path.join(d, c + ".setup.json"), "w") as f:
                json.dump({"dram_limit": "hugepages" if c != "dram" else "none"}, f)
    p = subprocess.run([REPORT, "--results", res, "--json", out, "--configs", "cxltier,numab2-tuned,dram",
                        "--programs", "zipf,liblinear"], capture_output=True, text=True)
    doc = json.load(open(out)) if p.returncode == 0 else {"records": [], "goals": []}
    rec = {(r["program"], r["config"]): r for r in doc["records"]}
    ll = rec.get(("liblinear", "cxltier"), {})
    check("a program's records beside the Zipf workload's", p.returncode == 0 and ("zipf", "cxltier") in rec and
          ll.get("program") == "liblinear" and ll.get("ftaf", 0) is None, p.stderr)
    check("a program's median run time, its minimum and maximum, the median seed's record",
          (ll.get("runtime_s"), ll.get("runtime_s_min"), ll.get("runtime_s_max"), ll.get("seed")) == (50.0, 40.0, 60.0, 3),
          json.dumps({k: ll.get(k) for k in ("runtime_s", "runtime_s_min", "runtime_s_max", "seed")}))
    check("rel_dram of a program: dram's run time over its own", ll.get("rel_dram") == 0.6 and ll.get("rel_dram_max") == 0.75,
          str(ll.get("rel_dram")))
    check("dram_frac and the DRAM it used", ll.get("dram_frac") == 0.6 and ll.get("dram_mb_used") == 15.0)
    check("the median seed's interrupts and the runner's own record, as measured",
          ll.get("interrupts") == {"TLB": 50, "LOC": 1000} and ll.get("runner", {}).get("cpu_s") == 0.5,
          json.dumps({k: ll.get(k) for k in ("interrupts", "runner")}))
    goal = [g for g in doc["goals"] if g["goal"] == "liblinear: cxltier beats numab2-tuned on run time"]
    check("a program's goal: by run time, seed by seed",
          goal and "median 50.0 s vs 47.5 s" in goal[0]["value"] and "faster in 1 of 2 seeds" in goal[0]["value"]
          and goal[0]["met"] is False, goal[0]["value"] if goal else json.dumps(doc["goals"]))
    check("a program's table", "liblinear:" in p.stdout and "40.0-60.0" in p.stdout, p.stdout)
    goal = [g for g in doc["goals"] if g["goal"] == "liblinear: cxltier's daemon CPU below 3% of one core"]
    check("a program's daemon CPU goal, split into sampling and moving pages",
          goal and goal[0]["value"] == "5.00% (in wall time: sampling and policy 1.00%, moving pages 4.00%)"
          and goal[0]["met"] is False and ll.get("cpu", {}).get("daemon_move_pct") == 4.0,
          goal[0]["value"] if goal else json.dumps(doc["goals"]))
    p = subprocess.run([REPORT, "--results", res, "--json", out, "--configs", "cxltier,dram",
                        "--programs", "liblinear"], capture_output=True, text=True)
    check("a program alone: no Zipf table", p.returncode == 0 and "ops/s" not in p.stdout and "liblinear:" in p.stdout,
          p.stdout + p.stderr)

    # A server's rows (folder redis, cxlt-bench-prog in server mode): by its client's
    # ops/s, higher is better; a region row that does not apply is said so.
    SRV_RUNS = {1: {"process": 600.0, "numab2-tuned": 500.0, "dram": 1000.0},
                2: {"process": 400.0, "numab2-tuned": 450.0, "dram": 1000.0},
                3: {"process": 500.0, "numab2-tuned": None, "dram": 1000.0}}
    for seed, rows in SRV_RUNS.items():
        d = os.path.join(res, f"seed-{seed}", "redis")
        os.makedirs(d)
        for c, ops in rows.items():
            run = {"config": c, "program": "redis", "mode": "server", "command": ["redis-server"],
                   "client_command": ["cxlt-bench-redisload"],
                   "workload": {"backend": "anon", "locator": "move_pages"}, "exit_status": 0,
                   "ops_per_s": ops, "runtime_s": 40.0, "cpu_user_s": 10.0, "cpu_sys_s": 1.0,
                   "client": {"ops_per_s": ops, "misses": 0, "series": [{"t": 1}]},
                   "steady": dict(span(0, 0), dram_frac=ops / 1000.0, resident_mb_mean=70.0),
                   "series": []} if ops else {"config": c, "skipped": "row timeout"}
            with open(os.path.join(d, c + ".json"), "w") as f:
                json.dump(run, f)
        with open(os.path.join(d, "cxltier.json"), "w") as f:
            json.dump({"config": "cxltier", "skipped": "does not apply to redis: none of its RSS in the region"}, f)
    p = subprocess.run([REPORT, "--results", res, "--json", out, "--configs", "process,cxltier,numab2-tuned,dram",
                        "--programs", "liblinear,redis"], capture_output=True, text=True)
    doc = json.load(open(out)) if p.returncode == 0 else {"records": [], "goals": []}
    rec = {(r["program"], r["config"]): r for r in doc["records"]}
    rp = rec.get(("redis", "process"), {})
    check("a server's record: its client's ops/s, median, minimum, maximum, the median seed's",
          p.returncode == 0 and rp.get("metric") == "ops_per_s" and
          (rp.get("ops_per_s"), rp.get("ops_per_s_min"), rp.get("ops_per_s_max"), rp.get("seed")) == (500.0, 400.0, 600.0, 3),
          p.stderr + json.dumps({k: rp.get(k) for k in ("ops_per_s", "ops_per_s_min", "ops_per_s_max", "seed")}))
    check("a server's rel_dram: its ops/s over dram's", rp.get("rel_dram") == 0.5 and rp.get("rel_dram_max") == 0.6,
          str(rp.get("rel_dram")))
    check("a server's record keeps the client's numbers, not its series",
          rp.get("client", {}).get("misses") == 0 and "series" not in rp.get("client", {}) and
          rp.get("client_command") == ["cxlt-bench-redisload"], json.dumps(rp.get("client")))
    goal = [g for g in doc["goals"] if g["goal"] == "redis: process beats numab2-tuned on ops/s"]
    check("a server's goal: higher ops/s wins, seed by seed",
          goal and "median 500 vs 475 ops/s" in goal[0]["value"] and "ahead in 1 of 2 seeds" in goal[0]["value"]
          and goal[0]["met"] is True, goal[0]["value"] if goal else json.dumps(doc["goals"]))
    table = p.stdout.split("\nredis:\n")[1].split("\ngoal ")[0] if "\nredis:\n" in p.stdout else ""
    check("a server's table: ops/s and its range, the row that does not apply with why",
          table and "ops/s" in table.splitlines()[0] and "400-600" in table and
          "cxltier        skipped: does not apply to redis" in table and "higher is better" in table, p.stdout)
    check("the run-time program's table stays by run time", "liblinear:" in p.stdout and
          "runtime_s" in p.stdout.split("liblinear:")[1].splitlines()[1], p.stdout)

    # A program that measures itself (dlrm, cxlt-bench-prog --rate): by its own
    # ops/s, higher is better; its DRAM limit has the framework's own DRAM in it.
    for seed, rows in {1: {"cxltier": 300.0, "dram": 1000.0}, 2: {"cxltier": 500.0, "dram": 1000.0}}.items():
        d = os.path.join(res, f"seed-{seed}", "dlrm")
        os.makedirs(d)
        for c, ops in rows.items():
            run = {"config": c, "program": "dlrm", "mode": "rate", "command": ["cxlt-bench-dlrm"],
                   "workload": {"backend": "anon", "locator": "move_pages"}, "exit_status": 0,
                   "ops_per_s": ops, "runtime_s": 90.0, "cpu_user_s": 80.0, "cpu_sys_s": 1.0,
                   "program_output": {"ops_per_s": ops, "samples_per_s": ops, "table_mib": 64.0},
                   "steady": dict(span(0, 0), dram_frac=ops / 1000.0, resident_mb_mean=180.0), "series": []}
            with open(os.path.join(d, c + ".json"), "w") as f:
                json.dump(run, f)
            with open(os.path.join(d, c + ".setup.json"), "w") as f:
                json.dump({"dram_limit": "hugetlb" if c != "dram" else "none", "base_dram_mb": 116}, f)
    p = subprocess.run([REPORT, "--results", res, "--json", out, "--configs", "cxltier,dram",
                        "--programs", "dlrm"], capture_output=True, text=True)
    doc = json.load(open(out)) if p.returncode == 0 else {"records": [], "goals": []}
    rec = {(r["program"], r["config"]): r for r in doc["records"]}
    rd = rec.get(("dlrm", "cxltier"), {})
    check("a rate-mode program's record: its own ops/s, median over the seeds, its output kept",
          p.returncode == 0 and rd.get("metric") == "ops_per_s" and rd.get("ops_per_s") == 400.0
          and rd.get("rel_dram") == 0.4 and rd.get("program_output", {}).get("table_mib") == 64.0,
          p.stderr + json.dumps({k: rd.get(k) for k in ("metric", "ops_per_s", "rel_dram", "program_output")}))
    check("a rate-mode program's DRAM limit: the guest's and the framework's own",
          rd.get("dram_mb_limit") == 40 + 116 and rec.get(("dlrm", "dram"), {}).get("dram_mb_limit") is None,
          json.dumps(rd.get("dram_mb_limit")))
    check("a rate-mode program's table: by ops/s, its own",
          "dlrm:" in p.stdout and "ops/s" in p.stdout.split("dlrm:")[1].splitlines()[1]
          and "its own" in p.stdout, p.stdout)

done()
