#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-bench-zipf, the guest benchmark's workload, on the host's anonymous memory:
the record make bench reads (bench/guest/report.cpp), its ruler wired in
(bench/guest/ruler.hpp, whose rule tests/bench/ruler_test.cpp checks), bad input refused.
Run by ctest as: zipf_test.py PATH/TO/cxlt-bench-zipf.  Prints TAP."""
import json
import os
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

ZIPF = sys.argv[1]


def run(*args):
    p = subprocess.run([ZIPF, "--config", "t", "--backend", "anon", *args],
                       capture_output=True, text=True, timeout=60)
    try:
        return p, json.loads(p.stdout)
    except ValueError:
        return p, {}


p, d = run("--size-mb", "4", "--duration", "2", "--interval", "0.5", "--warmup", "0.5")
check("zipf: a run of 2 s prints its record", p.returncode == 0 and d.get("config") == "t", p.stderr)
ser = d.get("series", [])
check("zipf: one sample per interval", len(ser) == 4, json.dumps(ser))
check("zipf: the ruler is named, move_pages with the carry",
      d.get("workload", {}).get("locator") == "move_pages+carry", json.dumps(d.get("workload")))
keys = {"ftaf", "ftaf_mapped", "fast_pages", "absent_pages", "carried_pages", "carried_mass",
        "carry_error", "moved_seen", "pingpong_seen"}
check("zipf: each sample has the ruler's reading", all(keys <= set(x) for x in ser),
      json.dumps(ser[:1]))
st = d.get("steady", {})
check("zipf: the steady state has ftaf, the old rule's ftaf_mapped and the carry's error",
      {"ftaf", "ftaf_mapped", "carried_mass_max", "carry_error_max"} <= set(st), json.dumps(st)[:400])
check("zipf: anonymous memory has no module answer, so no carry error",
      st.get("carry_error_max", 0) is None and all(x.get("carry_error", 0) is None for x in ser))
check("zipf: every page written and present: nothing absent, nothing carried",
      all(x.get("absent_pages") == 0 and x.get("carried_pages") == 0 for x in ser), json.dumps(ser))
nodes = sorted(n for n in os.listdir("/sys/devices/system/node") if n.startswith("node"))
if nodes == ["node0"]:
    check("zipf: on a machine of one node every access is on the fast tier, by both rules",
          all(abs(x.get("ftaf", 0) - 1) < 1e-9 and abs(x.get("ftaf_mapped", 0) - 1) < 1e-9
              and x.get("fast_pages") == 1024 for x in ser), json.dumps(ser))
else:
    # Where first touch puts the pages is the host's own business then.
    check("zipf: the fractions are between 0 and 1, the old rule's at most the carried one",
          all(0 <= x.get("ftaf_mapped", -1) <= x.get("ftaf", -1) <= 1 + 1e-9 for x in ser), json.dumps(ser))
check("zipf: ops were done", st.get("ops", 0) > 0 and st.get("ops_per_s", 0) > 0, json.dumps(st)[:200])
for name, args, want in (("an odd op size", ["--op-bytes", "100"], "--op-bytes"),
                         ("a working set of no pages", ["--size-mb", "0"], "--size-mb"),
                         ("an unknown backend", ["--backend", "tape"], "backend")):
    p = subprocess.run([ZIPF, *args], capture_output=True, text=True, timeout=30)
    check(f"zipf: {name} is refused, and it says why", p.returncode != 0 and want in p.stderr, p.stderr)
done()
