#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The guest benchmark's real-program tools on the host: cxlt-bench-svmdata writes
the same valid LIBSVM data for a seed, cxlt-bench-prog runs a program and locates
its pages from outside (move_pages(2) on its pid), reports its exit status, and
takes it down when it is killed itself (a row's timeout).
Run by ctest as: prog_test.py PATH/TO/cxlt-bench-svmdata PATH/TO/cxlt-bench-prog.
Prints TAP."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

SVMDATA, PROG = sys.argv[1], sys.argv[2]



def svm(tmp, name, *args):
    path = os.path.join(tmp, name)
    p = subprocess.run([SVMDATA, "--out", path, *args], capture_output=True, text=True)
    return p, (open(path).read() if p.returncode == 0 else "")


def valid(text, k, nfeat):
    for line in text.splitlines():
        parts = line.split()
        if parts[0] not in ("+1", "-1") or len(parts) != k + 1:
            return f"bad line {line!r}"
        idx = [int(x.split(":")[0]) for x in parts[1:]]
        if idx != sorted(set(idx)) or idx[0] < 1 or idx[-1] > nfeat:
            return f"indices not ascending, distinct, in 1..{nfeat}: {line!r}"
        if not all(re.fullmatch(r"[01]\.\d{3}", x.split(":")[1]) for x in parts[1:]):
            return f"values not in (0, 1]: {line!r}"
    return ""


def prog(tmp, *args, cmd):
    out = os.path.join(tmp, "prog.json")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([PROG, "--program", "t", "--config", "c", "--interval", "0.2",
                        "--out", out, *args, "--", *cmd], capture_output=True, text=True,
                       timeout=120)
    return p, (json.load(open(out)) if os.path.exists(out) else {})


with tempfile.TemporaryDirectory() as tmp:
    args = ["--instances", "500", "--nonzeros", "8", "--features", "1000"]
    p1, a = svm(tmp, "a", "--seed", "1", *args)
    p2, b = svm(tmp, "b", "--seed", "1", *args)
    p3, c = svm(tmp, "c", "--seed", "2", *args)
    check("svmdata: the same data for a seed, other data for another",
          p1.returncode == 0 and a and a == b and a != c, p1.stderr)
    check("svmdata: 500 lines of a label and 8 ascending distinct features with values in (0, 1]",
          len(a.splitlines()) == 500 and not valid(a, 8, 1000), valid(a, 8, 1000))
    labels = [line.split()[0] for line in a.splitlines()]
    check("svmdata: both classes", 100 < labels.count("+1") < 400, str(labels.count("+1")))
    counts = {}
    for line in a.splitlines():
        for x in line.split()[1:]:
            counts[x.split(":")[0]] = counts.get(x.split(":")[0], 0) + 1
    check("svmdata: Zipf features (feature 1 far more frequent than feature 900)",
          counts.get("1", 0) > 50 * max(1, counts.get("900", 0)) // 10, f"{counts.get('1')} {counts.get('900')}")
    p, _ = svm(tmp, "d", "--nonzeros", "20", "--features", "10")
    check("svmdata: more nonzeros than features is refused", p.returncode != 0 and "features" in p.stderr, p.stderr)

    # A program with 64 MiB of its own memory, written, held for a while.
    hold = ("import time; b = bytearray(64 << 20)\n"
            "for i in range(0, len(b), 4096): b[i] = 1\n"
            "time.sleep(1.5)")
    p, d = prog(tmp, cmd=["python3", "-c", hold])
    s = d.get("steady", {})
    check("prog: runs the program, exit status 0", p.returncode == 0 and d.get("exit_status") == 0, p.stderr)
    check("prog: its run time", d.get("runtime_s", 0) >= 1.5, str(d.get("runtime_s")))
    irq = s.get("interrupts", {})
    check("prog: the interrupts during it (TLB shootdowns, function calls, rescheduling, the timer's)",
          sorted(irq) == ["CAL", "LOC", "RES", "TLB"] and irq["LOC"] > 0, json.dumps(irq))
    check("prog: its pages located from outside (64 MiB resident at most)",
          s.get("resident_mb_max", 0) >= 64 and s.get("samples", 0) >= 3,
          f"{s.get('resident_mb_max')} MiB in {s.get('samples')} samples")
    ser = d.get("series", [])
    check("prog: each sample of the series has the fast nodes' free memory, which the mean is of",
          len(ser) == s.get("samples") and all(p_.get("fast_free_mb", 0) > 0 for p_ in ser) and
          abs(sum(p_["fast_free_mb"] for p_ in ser) / max(len(ser), 1) - s.get("fast_free_mb_mean", -1)) < 1e-6,
          json.dumps(ser[:2]) + f" mean {s.get('fast_free_mb_mean')}")
    fast = set(int(x) for x in open("/sys/devices/system/node/has_cpu").read().strip().replace("-", ",").split(",") if x)
    check("prog: on a machine of DRAM alone every page is on DRAM",
          fast != {0} or abs(s.get("dram_frac", 0) - 1.0) < 1e-9, str(s.get("dram_frac")))
    # The carry (bench/guest/ruler.hpp): a page of a shared mapping whose entry is
    # gone (as the daemon's sampling leaves a region's) is still in its object and
    # counts where it was; a private page whose entry is gone may be freed, and
    # counts as not resident.  32 MiB of each, written, then both dropped.
    drop = ("import mmap, os, time\n"
            "s = mmap.mmap(-1, 32 << 20, flags=mmap.MAP_SHARED)\n"
            "q = mmap.mmap(-1, 32 << 20, flags=mmap.MAP_PRIVATE)\n"
            "for m in (s, q):\n"
            "    for i in range(0, len(m), 4096): m[i] = 1\n"
            "time.sleep(1.0)\n"
            "s.madvise(mmap.MADV_DONTNEED); q.madvise(mmap.MADV_DONTNEED)\n"
            "time.sleep(1.0)\n"
            "os._exit(0)")  # not Python's exit, which unmaps both while a sample may run
    p, d = prog(tmp, cmd=["python3", "-c", drop])
    ser = d.get("series", [])
    # The samples after the drop: past the first that saw both mappings written (an
    # earlier one may find pages not yet written, absent too), with the private
    # mapping's pages gone.
    full = next((i for i, x in enumerate(ser) if x.get("fast_pages", 0) + x.get("slow_pages", 0) >= 16384),
                len(ser))
    after = [x for x in ser[full + 1:] if x.get("absent_pages", 0) >= 8192]
    last = after[-1] if after else {}
    check("prog: before the drop both mappings are resident, nothing carried",
          p.returncode == 0 and any(x.get("fast_pages", 0) + x.get("slow_pages", 0) >= 16384
                                    and x.get("carried_pages", 1) == 0 for x in ser),
          p.stderr + json.dumps(ser[:3]))
    check("prog: after it the shared mapping's pages are carried, the private ones are not resident",
          len(after) >= 2 and all(x.get("carried_pages", 0) >= 8192 for x in after)
          and last.get("fast_pages", 0) + last.get("slow_pages", 0) >= 8192
          and last.get("fast_pages", 0) + last.get("slow_pages", 0) < 16384, json.dumps(after))
    # The runner's work and memory follow the program's resident pages, not the size
    # of its mappings: a shared mapping of 4 GiB with 1 MiB of it written (the
    # preload's sparse region is as large as the host's memory; MAP_NORESERVE, 0x4000
    # on x86-64, which Python 3.11's mmap does not name, so that no host refuses it).
    # Asking about one page in four of all its pages took the runner 3.6 MiB more
    # than beside sleep(1) (15 with a history for each); asking only about the pages
    # present in its page tables, 0.2.  Every page not written counts as absent.
    sparse = ("import mmap, os, time\n"
              "s = mmap.mmap(-1, 4 << 30, flags=mmap.MAP_SHARED | 0x4000)\n"
              "for i in range(0, 1 << 20, 4096): s[i] = 1\n"
              "time.sleep(2.0)\n"
              "os._exit(0)")  # not Python's exit, which unmaps it while a sample may run
    p0, d0 = prog(tmp, cmd=["sleep", "2"])
    p, d = prog(tmp, cmd=["python3", "-c", sparse])
    base, runner = d0.get("runner", {}), d.get("runner", {})
    check("prog: its own memory and CPU time are reported, and its memory beside a sparse mapping is within 1 MiB of its memory beside sleep",
          p.returncode == 0 and p0.returncode == 0 and 0 < base.get("max_rss_mb", 0)
          and runner.get("max_rss_mb", 99) < base["max_rss_mb"] + 1 and runner.get("cpu_s", -1) >= 0
          and 0 < runner.get("locate_cpu_s", -1) <= runner["cpu_s"] + 0.01,
          p.stderr + json.dumps(runner) + json.dumps(base))
    # The samples after the writes (an earlier one finds the mapping partly written).
    written = [x for x in d.get("series", []) if x.get("absent_pages", 0) >= (1 << 20) - 256
               and 256 <= x.get("fast_pages", 0) + x.get("slow_pages", 0) < 16384]
    check("prog: beside a sparse mapping the unwritten pages are absent, the written ones located",
          len(written) >= 3, json.dumps(d.get("series", [])[-3:]))
    p, d = prog(tmp, "--membind", "0", cmd=["python3", "-c", hold])
    check("prog: --membind binds it (node 0)", p.returncode == 0 and d.get("steady", {}).get("resident_mb_max", 0) >= 64,
          p.stderr)
    # The runner's own memory is bound to the fast nodes and locked there
    # (so no row's tiering moves it, and NUMA balancing does not scan it); the
    # program gets neither: the default policy in every mapping, nothing locked.
    p, d = prog(tmp, cmd=["sh", "-c", "awk '$2 != \"default\" { n++ } END { print n + 0 }' /proc/self/numa_maps; "
                              "grep VmLck: /proc/self/status"])
    runner = d.get("runner", {})
    check("prog: its own memory is locked, all of it on the fast nodes",
          p.returncode == 0 and runner.get("locked_mb", 0) >= runner.get("rss_mb", 99) * 0.9
          and runner.get("pages_fast", 0) > 0 and runner.get("pages_slow", -1) == 0,
          p.stderr + json.dumps(runner))
    check("prog: the program has the default memory policy and nothing locked",
          p.returncode == 0 and p.stdout.split() == ["0", "VmLck:", "0", "kB"], p.stdout + p.stderr)
    p, d = prog(tmp, cmd=["sh", "-c", "exit 3"])
    check("prog: a program that fails: its status, and we fail", p.returncode == 1 and d.get("exit_status") == 3,
          f"{p.returncode} {d.get('exit_status')}")
    p, d = prog(tmp, cmd=["/nonexistent/program"])
    check("prog: a program that cannot run: 127, and why", d.get("exit_status") == 127 and "cannot run" in p.stderr,
          p.stderr)
    p, d = prog(tmp, "--regions", "r", "--membind", "0", cmd=["true"])
    check("prog: --regions with --membind is refused", p.returncode != 0 and "exclude" in p.stderr, p.stderr)
    p, d = prog(tmp, "--cgroup", os.path.join(tmp, "no-such-cgroup"), cmd=["true"])
    check("prog: a cgroup it cannot join fails the run", p.returncode != 0 and d.get("exit_status") == 126, p.stderr)

    # Rate mode: the program's own rate, from the last line of its stdout.
    log = os.path.join(tmp, "rate.log")
    me = ("import json, sys, time; b = bytearray(16 << 20)\n"
          "for i in range(0, len(b), 4096): b[i] = 1\n"
          "print('warming up', file=sys.stderr); time.sleep(0.6)\n"
          "print('a line that is not the result')\n"
          "print(json.dumps({'ops_per_s': 1234.5, 'steps': 7}))")
    p, d = prog(tmp, "--rate", "--log", log, cmd=["python3", "-c", me])
    check("prog --rate: the result is the ops_per_s of the program's last line",
          p.returncode == 0 and d.get("mode") == "rate" and d.get("ops_per_s") == 1234.5
          and d.get("program_output", {}).get("steps") == 7 and d.get("exit_status") == 0, p.stderr)
    check("prog --rate: placement sampled as in every mode",
          d.get("steady", {}).get("samples", 0) >= 1, json.dumps(d.get("steady")))
    check("prog --rate: its stderr in --log, its stdout not",
          "warming up" in open(log).read() and "ops_per_s" not in open(log).read(), open(log).read())
    for name, code, want in (
            ("no JSON", "print('done')", "printed no JSON object with a number ops_per_s"),
            ("JSON not on the last line", "print('{\"ops_per_s\": 1}'); print('bye')",
             "printed no JSON object"),
            ("ops_per_s not a number", "print('{\"ops_per_s\": \"fast\"}')", "printed no JSON object"),
            ("a failing program", "import sys; print('{\"ops_per_s\": 1}'); sys.exit(3)",
             "exited with status 3")):
        p, d = prog(tmp, "--rate", cmd=["python3", "-c", code])
        check(f"prog --rate: {name} fails the run, and says why",
              p.returncode != 0 and d.get("ops_per_s", 0) is None and want in d.get("error", "")
              and want in p.stderr, p.stderr + json.dumps(d.get("error")))
    p = subprocess.run([PROG, "--program", "t", "--rate", "--ready", "unix:/nonexistent", "--",
                        "true", "--client--", "true"], capture_output=True, text=True, timeout=30)
    check("prog --rate: refused in server mode", p.returncode != 0 and "--rate" in p.stderr, p.stderr)

    # Killed (a row's timeout), it takes the program with it.
    mark = os.path.join(tmp, "child.pid")
    r = subprocess.Popen([PROG, "--program", "t", "--out", os.path.join(tmp, "k.json"), "--",
                          "sh", "-c", f"echo $$ > {mark}; exec sleep 60"])
    for _ in range(100):
        if os.path.exists(mark) and open(mark).read().strip():
            break
        time.sleep(0.05)
    child = int(open(mark).read())
    r.send_signal(signal.SIGTERM)
    r.wait(timeout=30)
    gone = False
    for _ in range(100):
        try:
            os.kill(child, 0)
            # A zombie of init's counts as gone.
            if open(f"/proc/{child}/stat").read().split(")")[1].split()[0] == "Z":
                gone = True
                break
        except (ProcessLookupError, FileNotFoundError):
            gone = True
            break
        time.sleep(0.05)
    if not gone:
        os.kill(child, signal.SIGKILL)
    check("prog: killed, it kills the program", gone)

done()
