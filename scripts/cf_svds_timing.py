#!/usr/bin/env python3
"""Times scipy's svds (what the paper's tokenizer/collaborative_signal.py calls) on the PPMI
matrices `sidlens cf` factorises, and compares the pairwise cosines with sidlens's output.
Not run in CI.

    cargo bench --bench cf            # writes target/bench-data/cf-<N>.inter.json and .npy
    target/release/sidlens cf --quiet --json --interactions target/bench-data/cf-50000.inter.json \
        --out target/bench-data/cf-50000.npy > target/bench-data/cf-50000.json
    python3 scripts/cf_svds_timing.py target/bench-data/cf-50000.inter.json \
        target/bench-data/cf-50000.npy target/bench-data/cf-50000.json

The second and third arguments are optional: sidlens's embedding (pairwise cosines are
compared on 3,000 random items) and its `--json` summary (singular values are compared).
"""
import json, sys, time
import numpy as np
from scipy import sparse
from scipy.sparse.linalg import svds


def ppmi_matrix(inter, n=None, window=3, holdout=2):
    rows, cols = [], []
    seqs = [[int(x) for x in s][:-holdout] for s in inter.values()]
    n = n or max(max(s) for s in inter.values() for s in [[int(x) for x in s]]) + 1
    for s in seqs:
        if len(s) < 2:
            continue
        for i, a in enumerate(s):
            for j in range(i + 1, min(len(s), i + window + 1)):
                if a != s[j]:
                    rows += [a, s[j]]
                    cols += [s[j], a]
    c = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    t = c.sum()
    r = np.maximum(np.asarray(c.sum(axis=1)).ravel(), 1e-12)
    k = np.maximum(np.asarray(c.sum(axis=0)).ravel(), 1e-12)
    coo = c.tocoo()
    v = np.maximum(np.log(coo.data * t / (r[coo.row] * k[coo.col])), 0)
    return sparse.csr_matrix((v, (coo.row, coo.col)), shape=c.shape)


inter = json.load(open(sys.argv[1]))
m = ppmi_matrix(inter)
k = min(256, m.shape[0] - 2)
v0 = np.random.RandomState(42).standard_normal(m.shape[0])
start, cpu = time.time(), time.process_time()
u, s, vt = svds(m, k=k, v0=v0)
print(f"n={m.shape[0]} nnz={m.nnz} svds k={k}: {time.time() - start:.2f} s wall, "
      f"{time.process_time() - cpu:.2f} s CPU")
if len(sys.argv) > 2:
    order = np.argsort(-s)
    e = u[:, order] * np.sqrt(s[order])
    e /= np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-8)
    ours = np.load(sys.argv[2]).astype(np.float64)
    rng = np.random.RandomState(0)
    idx = rng.choice(m.shape[0], size=min(3000, m.shape[0]), replace=False)
    diff = np.abs(e[idx] @ e[idx].T - ours[idx] @ ours[idx].T).max()
    print(f"largest pairwise cosine difference on 3,000 items: {diff:.2e}")
if len(sys.argv) > 3:
    ours = np.array(json.load(open(sys.argv[3]))["singular_values"])
    theirs = np.sort(s)[::-1]
    rel = np.abs(ours - theirs[: len(ours)]) / theirs[0]
    print(f"largest singular value difference (relative to sigma_1): {rel.max():.2e}")
