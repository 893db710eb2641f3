#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/trace/densify: a pagetrace file (u64 page numbers) to cxlt-sim's text trace,
pages numbered in order of first use, comments first; bad files refused.
Run by ctest as: densify_test.py PATH/TO/densify.  Prints TAP."""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

DENSIFY = sys.argv[1]


def run(data, *args):
    with tempfile.NamedTemporaryFile(suffix=".u64") as f:
        f.write(data)
        f.flush()
        return subprocess.run([sys.executable, DENSIFY, f.name, *args],
                              capture_output=True, text=True)


pages = [0x4000123, 0x4000999, 0x4000123, 0x7, 0x4000999, 0x4000999, 0x7, 0x4000123]
p = run(struct.pack(f"<{len(pages)}Q", *pages), "--comment", "liblinear-1: a run",
        "--comment", "two\nlines")
lines = p.stdout.splitlines()
check("densify exits 0", p.returncode == 0, p.stderr)
check("comments first, one line each", lines[:2] == ["# liblinear-1: a run", "# two lines"], lines[:3])
check("what was kept, the count of accesses and pages",
      lines[2:4] == ["# kept 1 in 1 of 8 entries", "# 8 accesses to 3 pages"], lines[2:4])
check("pages numbered in order of first use",
      lines[4:] == ["0", "1", "0", "2", "1", "1", "2", "0"], lines[4:])
check("what was kept is said on stderr",
      p.stderr.strip() == "densify: kept 1 in 1 of 8 entries: 8 accesses to 3 pages", p.stderr)

# --accesses 3 of 8: every 3rd (the 3rd and the 6th), numbered among themselves.
p = run(struct.pack(f"<{len(pages)}Q", *pages), "--accesses", "3")
lines = p.stdout.splitlines()
check("--accesses thins evenly to at most N", p.returncode == 0 and
      lines == ["# kept 1 in 3 of 8 entries", "# 2 accesses to 2 pages", "0", "1"], lines)
# --keep 2 of 8: every 2nd, however long the run (the 2nd, 4th, 6th and 8th).
p = run(struct.pack(f"<{len(pages)}Q", *pages), "--keep", "2")
lines = p.stdout.splitlines()
check("--keep K keeps every K-th", p.returncode == 0 and
      lines == ["# kept 1 in 2 of 8 entries", "# 4 accesses to 3 pages", "0", "1", "0", "2"], lines)
p = run(struct.pack(f"<{len(pages)}Q", *pages), "--keep", "20")
check("--keep longer than the run is refused (it would keep nothing)",
      p.returncode != 0 and "keeps nothing" in p.stderr, p.stderr)
p = run(struct.pack("<Q", 5), "--keep", "0")
check("--keep 0 is refused", p.returncode != 0 and "at least 1" in p.stderr, p.stderr)
p = run(struct.pack("<Q", 5), "--keep", "2", "--accesses", "3")
check("--keep with --accesses is refused", p.returncode != 0 and "not allowed" in p.stderr, p.stderr)
p = run(struct.pack("<Q", 5), "--accesses", "0")
check("--accesses 0 is refused", p.returncode != 0 and "at least 1" in p.stderr, p.stderr)

p = run(b"\x01\x02\x03")
check("a file that is not whole u64s is refused", p.returncode != 0 and "not a whole number" in p.stderr,
      p.stderr)
p = run(b"")
check("an empty file is refused", p.returncode != 0 and "empty" in p.stderr, p.stderr)
done()
