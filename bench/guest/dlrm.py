#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""cxlt-bench-dlrm: training steps of a DLRM-like recommendation model in PyTorch.

    cxlt-bench-dlrm [--tables N] [--rows N] [--dim N] [--hot N] [--batch N]
                    [--zipf S] [--seed N] [--warmup S] [--duration S] [--interval S]

The memory of such a model is its embedding tables: N tables of ROWS rows of DIM
float32 each (default 4 x 262144 x 16: 64 MiB, more than the guest benchmark's
DRAM limit), looked up by sparse categorical features and updated in place by
sparse SGD, with a small dense MLP on top (the model of Naumov et al., "Deep
Learning Recommendation Model for Personalization and Recommendation Systems",
2019, at a size TCG can run).  A sample has one dense vector of 13 features and,
for every table, a bag of HOT indices drawn from a Zipf(S) over the table's rows
whose ranks are scattered over the table by --seed (the ids of real
click logs are hashed: the hot rows are not next to each other), one table's
permutation independent of another's.

Steps run for --warmup seconds, then for --duration seconds; what it prints on
stdout is one JSON object: samples_per_s over the measured span (the result; higher
is better) and ops_per_s, the same number, for cxlt-bench-prog.  Progress goes to
stderr every --interval seconds.  Everything random comes from --seed.
"""
import argparse
import json
import math
import sys
import time

import torch
from torch import nn


def parse():
    p = argparse.ArgumentParser(prog="cxlt-bench-dlrm", description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--rows", type=int, default=262144)
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--hot", type=int, default=4, help="indices per table per sample")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--zipf", type=float, default=0.99)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--warmup", type=float, default=10)
    p.add_argument("--duration", type=float, default=30)
    p.add_argument("--interval", type=float, default=4)
    a = p.parse_args()
    for name in ("tables", "rows", "dim", "hot", "batch"):
        if getattr(a, name) < 1:
            p.error(f"--{name} must be at least 1")
    if not 0 <= a.zipf <= 4:
        p.error("--zipf must be within 0..4")
    if a.warmup < 0 or a.duration <= 0 or a.interval <= 0:
        p.error("--warmup must be >= 0, --duration and --interval > 0")
    return a


class Sampler:
    """Zipf(s) ranks over n rows by the inverse of its distribution function (one
    binary search a draw, not a pass over the rows), each rank sent to a row by a
    random permutation of the table's own."""

    def __init__(self, cdf, gen):
        self.cdf = cdf
        self.perm = torch.randperm(cdf.numel(), generator=gen)
        self.gen = gen

    def draw(self, k):
        u = torch.rand(k, dtype=torch.float64, generator=self.gen)
        ranks = torch.searchsorted(self.cdf, u).clamp_(max=self.cdf.numel() - 1)
        return self.perm[ranks]


def zipf_cdf(n, s):
    w = torch.arange(1, n + 1, dtype=torch.float64).pow(-s)
    return torch.cumsum(w, 0) / w.sum()


class DLRM(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.emb = nn.ModuleList(
            nn.EmbeddingBag(a.rows, a.dim, mode="sum", sparse=True) for _ in range(a.tables))
        self.bottom = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, a.dim), nn.ReLU())
        n = a.tables + 1
        self.top = nn.Sequential(nn.Linear(a.dim + n * (n - 1) // 2, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense, bags, offsets):
        x = self.bottom(dense)
        feats = torch.stack([x] + [e(b, offsets) for e, b in zip(self.emb, bags)], dim=1)
        inter = torch.bmm(feats, feats.transpose(1, 2))
        i, j = torch.triu_indices(feats.shape[1], feats.shape[1], offset=1)
        return self.top(torch.cat([x, inter[:, i, j]], dim=1)).squeeze(1)


def main():
    a = parse()
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(a.seed)
    torch.manual_seed(a.seed)
    model = DLRM(a)
    cdf = zipf_cdf(a.rows, a.zipf)
    samplers = [Sampler(cdf, gen) for _ in range(a.tables)]
    sparse = torch.optim.SGD(model.emb.parameters(), lr=0.05)
    dense_opt = torch.optim.SGD(list(model.bottom.parameters()) + list(model.top.parameters()), lr=0.05)
    loss_fn = nn.BCEWithLogitsLoss()
    offsets = torch.arange(0, a.batch * a.hot, a.hot)
    mib = a.tables * a.rows * a.dim * 4 / 2**20
    print(f"cxlt-bench-dlrm: {a.tables} tables of {a.rows} x {a.dim} ({mib:.0f} MiB), "
          f"batch {a.batch}, {a.hot} per bag, zipf {a.zipf}", file=sys.stderr, flush=True)

    def step():
        dense = torch.randn(a.batch, 13, generator=gen)
        bags = [s.draw(a.batch * a.hot) for s in samplers]
        label = torch.randint(0, 2, (a.batch,), generator=gen).float()
        sparse.zero_grad(set_to_none=True)
        dense_opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(dense, bags, offsets), label)
        loss.backward()
        sparse.step()
        dense_opt.step()
        return loss.item()

    t0 = time.monotonic()
    start = t0 + a.warmup
    end = start + a.duration
    steps = 0
    measured = 0
    last = t0
    loss = math.nan
    while True:
        now = time.monotonic()
        if now >= end:
            break
        loss = step()
        steps += 1
        if now >= start:
            measured += 1
        if now - last >= a.interval:
            phase = "warmup" if now < start else "measured"
            print(f"cxlt-bench-dlrm: {now - t0:.0f} s, {steps} steps ({phase}), loss {loss:.3f}",
                  file=sys.stderr, flush=True)
            last = now
    if not math.isfinite(loss):
        print("cxlt-bench-dlrm: the loss is not finite", file=sys.stderr)
        return 1
    if measured == 0:
        print("cxlt-bench-dlrm: no step ended in the measured span", file=sys.stderr)
        return 1
    rate = measured * a.batch / a.duration
    print(json.dumps({"samples_per_s": rate, "ops_per_s": rate, "steps": measured,
                      "warmup_steps": steps - measured, "table_mib": mib, "loss": loss}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
