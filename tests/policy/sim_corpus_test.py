#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-sim's program-trace corpus (--corpus DIR, bench/sim/main.cpp), on a small
corpus written here: DIR/tuning/*.txt join the tuning half (every policy at
--ratios, in the tuning records, with the bounds and oracles of the other
traces), DIR/heldout/*.txt the held-out half (cxltier and nb-tiering at 1/8,
1/4 and 1/2, in "heldout", in its goals); against --baseline a held-out trace
with no entry is "new" and no regression, one whose entry matches its size,
length and content is compared (a doctored entry is a REGRESSION), one whose
entry is for other content is "changed".  --traces and --trace-file restrict
the tuning half; a missing DIR or subfolder, an empty trace and a stray file
are errors that name the path.  Run by ctest as: sim_corpus_test.py
PATH/TO/cxlt-sim BASELINE.  Prints TAP."""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

SIM, BASELINE = sys.argv[1], sys.argv[2]
PAGES, LENGTH = 256, 150_000
TUNING, HELDOUT = ["tun-a", "tun-b"], ["ho-base", "ho-changed", "ho-new"]
RATIOS = [0.125, 0.25, 0.5]
# Tiny synthetic tuning traces: the corpus is what is tested, not them.
SMALL = ["--pages", "256", "--periods", "16", "--jobs", "2"]


def sim(*args):
    return subprocess.run([SIM, *args], capture_output=True, text=True)


def program(seed, base):
    """A drifting hot set of 1/8 of the pages, page numbers sparse from @base."""
    rng = random.Random(seed)
    hot = rng.sample(range(PAGES), PAGES // 8)
    acc = list(range(PAGES))
    while len(acc) < LENGTH:
        if len(acc) % 2048 == 0:
            hot[rng.randrange(len(hot))] = rng.randrange(PAGES)
        acc.append(rng.choice(hot) if rng.random() < 0.8 else rng.randrange(PAGES))
    return [base + 3 * p for p in acc]


def write(path, acc, header=("program: sim_corpus_test",)):
    with open(path, "w") as f:
        f.write("".join(f"# {h}\n" for h in header))
        f.write("".join(f"{p:#x}\n" if i % 2 else f"{p}\n" for i, p in enumerate(acc)))


def key(acc):
    """What the simulator matches a baseline entry on: pages, accesses and the
    FNV-1a digest of the pages renumbered densely in order of first use."""
    ids, h = {}, 0xcbf29ce484222325
    for p in acc:
        h = ((h ^ ids.setdefault(p, len(ids))) * 0x100000001b3) & (2**64 - 1)
    return {"pages": len(ids), "accesses": len(acc), "digest": f"fnv1a64:{h:016x}"}


def corpus(root, tuning, heldout):
    for half, traces in (("tuning", tuning), ("heldout", heldout)):
        os.makedirs(os.path.join(root, half), exist_ok=True)
        for name, acc in traces.items():
            write(os.path.join(root, half, name + ".txt"), acc)
    return root


def fails_naming(what, p, path):
    check(f"{what}: fails", p.returncode != 0, p.stdout[-500:])
    check(f"{what}: the error names {path}", path in p.stderr, p.stderr)


with tempfile.TemporaryDirectory() as tmp:
    traces = {n: program(i, 0x7f0000 if i % 2 else 0) for i, n in enumerate(TUNING + HELDOUT)}
    root = corpus(os.path.join(tmp, "corpus"), {n: traces[n] for n in TUNING},
                  {n: traces[n] for n in HELDOUT})

    # The stored baseline, plus an entry for ho-base that cxltier cannot reach
    # (ftaf above 1: every size a regression) and one for ho-changed whose
    # content differs from the trace's.
    with open(BASELINE) as f:
        base = json.load(f)
    for r in RATIOS:
        base["traces"].append({"trace": "ho-base", "fast_ratio": r, "ftaf": 1.01,
                               **key(traces["ho-base"])})
        base["traces"].append({"trace": "ho-changed", "fast_ratio": r, "ftaf": 1.01,
                               **key(traces["ho-changed"][:-1])})
    doctored = os.path.join(tmp, "baseline.json")
    with open(doctored, "w") as f:
        json.dump(base, f)

    # The held-out half (the synthetic traces are most of the test's time: once).
    out, wb = os.path.join(tmp, "sim.json"), os.path.join(tmp, "written.json")
    p = sim("--corpus", root, "--heldout", "only", "--jobs", "2", "--baseline", doctored,
            "--json", out, "--write-baseline", wb)
    check("--heldout only with the corpus succeeds", p.returncode == 0, p.stderr)
    if p.returncode:
        done()
    with open(out) as f:
        d = json.load(f)
    h = d["heldout"]
    check("--heldout only: no tuning records, no tuning table",
          not d["records"] and not any(l.split()[:1] == ["tun-a"] for l in p.stdout.splitlines()),
          d["records"][:1])

    rows = {}
    for name in HELDOUT:
        rs = [r for r in h["rows"] if r["trace"] == name]
        rows[name] = rs
        check(f"{name} has a held-out row at 1/8, 1/4 and 1/2",
              sorted(r["fast_ratio"] for r in rs) == RATIOS, rs)
        check(f"{name}'s rows: cxltier and nb-tiering, both bounds, its size, length and digest",
              all(r["source"] == "corpus" and isinstance(r["cxltier_ftaf"], float)
                  and isinstance(r["nb_tiering_ftaf"], float)
                  and isinstance(r["bound_period_ftaf"], float)
                  and isinstance(r["bound_budget_ftaf"], float)
                  and r["periods"] == math.ceil(LENGTH / (PAGES // 4))
                  and {k: r[k] for k in ("pages", "accesses", "digest")} == key(traces[name])
                  for r in rs), rs[:1])
        recs = [r for r in h["records"] if r["trace"] == name]
        check(f"{name}'s held-out records: cxltier and nb-tiering at the three sizes, "
              "period working set / 4",
              sorted((r["policy"], r["fast_ratio"]) for r in recs)
              == sorted((q, r) for q in ("cxltier", "nb-tiering") for r in RATIOS)
              and all(r["period_accesses"] == PAGES // 4 for r in recs), recs)
    lines = {n: [l for l in p.stdout.splitlines() if l.split()[:1] == [n]] for n in HELDOUT}

    check("ho-new, no baseline entry: 'new' and no regression",
          all(r["baseline_status"] == "new" and not r["regression"]
              and r["baseline_ftaf"] is None for r in rows["ho-new"]), rows["ho-new"])
    check("ho-new's table rows say new (no baseline), not REGRESSION",
          len(lines["ho-new"]) == 3 and all(l.rstrip().endswith("new (no baseline)")
                                            for l in lines["ho-new"]), lines["ho-new"])
    check("ho-base, an entry of its size, length and content at 1.01: compared, a regression",
          all(r["baseline_status"] == "compared" and r["regression"] for r in rows["ho-base"]),
          rows["ho-base"])
    check("ho-base's table rows say REGRESSION",
          len(lines["ho-base"]) == 3 and all(l.rstrip().endswith("REGRESSION")
                                             for l in lines["ho-base"]), lines["ho-base"])
    check("ho-changed, an entry for other content: changed, not compared, no regression",
          all(r["baseline_status"] == "changed" and not r["regression"]
              and r["baseline_ftaf"] is None for r in rows["ho-changed"]), rows["ho-changed"])
    synth = [r for r in h["rows"] if r["source"] == "synthetic"]
    check("the synthetic held-out rows are still compared with the stored baseline",
          len(synth) == 15 and all(r["baseline_status"] == "compared" for r in synth),
          [(r["trace"], r["baseline_status"]) for r in synth])

    goals = {g["goal"]: g["value"] for g in d["goals"]}
    ahead = goals.get("ftaf ahead of nb-tiering on every held-out trace at 1/8, 1/4 and 1/2", "")
    check("the held-out goal counts the program traces (8 traces, 24 rows)", " of 24" in ahead,
          ahead)
    pp = goals.get("pingpong <= 5% of promotions on every trace, both halves", "")
    check("the ping-pong goal counts their cxltier runs (24)", " of 24;" in pp, pp)

    with open(wb) as f:
        w = json.load(f)["traces"]
    for name in HELDOUT:
        es = [e for e in w if e["trace"] == name]
        check(f"--write-baseline writes {name} at the three sizes with its key",
              sorted(e["fast_ratio"] for e in es) == RATIOS
              and all({k: e[k] for k in ("pages", "accesses", "digest")} == key(traces[name])
                      for e in es), es)

    # The tuning half: every policy at --ratios (default 1/4, 1/2).
    p = sim("--corpus", root, *SMALL, "--heldout", "off", "--json", out)
    check("the tuning half with the corpus runs", p.returncode == 0, p.stderr)
    if p.returncode:
        done()
    with open(out) as f:
        d = json.load(f)
    check("--heldout off: no held-out part", "heldout" not in d, d.keys())
    policies = {r["policy"] for r in d["records"] if r["trace"] == "uniform"}
    for name in TUNING:
        recs = [r for r in d["records"] if r["trace"] == name]
        check(f"{name} is in the tuning records, every policy at 1/4 and 1/2",
              sorted((r["policy"], r["fast_ratio"]) for r in recs)
              == sorted((q, r) for q in policies for r in (0.25, 0.5)), recs)
        check(f"{name} is a corpus trace of its file's length, period working set / 4",
              all(r["source"] == "corpus" and r["pages"] == PAGES and r["accesses"] == LENGTH
                  and r["period_accesses"] == PAGES // 4 for r in recs), recs[:1])
        check(f"{name} has both bounds and both oracles, ratio over the least bound that holds",
              recs and all(isinstance(r[k], float) for r in recs for k in
                           ("bound_period_ftaf", "bound_budget_ftaf", "oracle_static_ftaf",
                            "oracle_window_ftaf"))
              and all(r["bound_ftaf"] is not None and r["ratio_to_bound"] is not None
                      and abs(r["ratio_to_bound"] - r["ftaf"] / r["bound_ftaf"]) < 1e-12
                      and r["bound_ftaf"] == min(
                          [1.0] + [r["bound_period_ftaf"]] * r["bound_period_holds"]
                          + [r["bound_budget_ftaf"]] * r["bound_budget_holds"])
                      for r in recs), recs[:1])
        check(f"{name} is in the tuning table",
              any(l.split()[:1] == [name] for l in p.stdout.splitlines()), p.stdout)
    pp = {g["goal"]: g["value"] for g in d["goals"]}.get(
        "pingpong <= 5% of promotions on every trace, both halves", "")
    check("the ping-pong goal counts the tuning program traces (10 traces at 2 sizes)",
          " of 20;" in pp, pp)

    # --traces and --trace-file restrict the tuning half (held-out: auto, off).
    p = sim("--corpus", root, *SMALL, "--traces", "tun-b,uniform", "--json", out)
    with open(out) as f:
        got = sorted({r["trace"] for r in json.load(f)["records"]}) if p.returncode == 0 else p.stderr
    check("--traces names a corpus tuning trace: that one and the synthetic one named",
          got == ["tun-b", "uniform"], got)
    tf = os.path.join(tmp, "one.trace")
    write(tf, traces["tun-a"][:4000])
    p = sim("--corpus", root, *SMALL, "--trace-file", tf, "--json", out)
    with open(out) as f:
        got = sorted({r["trace"] for r in json.load(f)["records"]}) if p.returncode == 0 else p.stderr
    check("--trace-file: the file alone, no corpus tuning trace", got == ["one.trace"], got)
    p = sim("--corpus", root, *SMALL, "--traces", "ho-new")
    check("--traces refuses a corpus held-out trace",
          p.returncode != 0 and "held-out" in p.stderr, p.stderr)

    # Errors that name what is wrong, before anything runs.
    missing = os.path.join(tmp, "no-such-corpus")
    fails_naming("a missing --corpus dir", sim("--corpus", missing, *SMALL), missing)
    bad = corpus(os.path.join(tmp, "empty-trace"), {}, {"ok": traces["ho-new"][:5000]})
    empty = os.path.join(bad, "heldout", "empty.txt")
    write(empty, [], ("program: recorded nothing",))
    p = sim("--corpus", bad, *SMALL)
    fails_naming("an empty held-out trace", p, empty)
    check("an empty trace: the error says it has no accesses", "no accesses" in p.stderr, p.stderr)
    os.remove(empty)
    xz = os.path.join(bad, "heldout", "ok2.txt.xz")
    open(xz, "wb").close()
    fails_naming("a compressed trace left in the corpus", sim("--corpus", bad, *SMALL), xz)
    os.remove(xz)
    empty = os.path.join(bad, "tuning", "empty.txt")
    open(empty, "w").close()
    fails_naming("an empty tuning trace, zero bytes", sim("--corpus", bad, *SMALL), empty)
    nohalf = os.path.join(tmp, "no-heldout")
    os.makedirs(os.path.join(nohalf, "tuning"))
    fails_naming("a corpus without heldout/", sim("--corpus", nohalf, *SMALL),
                 os.path.join(nohalf, "heldout"))

    # Empty halves are fine: nothing added.
    os.makedirs(os.path.join(nohalf, "heldout"))
    p = sim("--corpus", nohalf, *SMALL, "--traces", "uniform", "--json", out)
    check("a corpus with empty tuning/ and heldout/ runs", p.returncode == 0, p.stderr)

done()
