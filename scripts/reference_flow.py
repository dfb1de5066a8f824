#!/usr/bin/env python3
"""The paper's reference flow for one stage, timed as a whole process by perf_vs_reference.sh.

Imports the published code from a CollisionGenRec checkout (its `model/cce.py` and
`tokenizer/zcr.py`; nothing of it is copied here) and runs what a user of that code runs:

  stats INDEX                      json.load + Counter over the SID strings
  eval INDEX BEAMS [K...]          cce.py: SID-level Hit/NDCG and ItemHit/ItemNDCG per user
  zcr INDEX LATENTS CODEBOOKS      zcr.py: apply_zcr optimal, then greedy

Needs numpy, scipy and torch (for zcr.py). Not run in CI.
Usage: reference_flow.py REPO STAGE ARGS...
"""

import json
import sys
from collections import Counter


def load_index(path):
    with open(path) as f:
        return json.load(f)


def load_beams(path):
    with open(path) as f:
        first = f.read(1)
        f.seek(0)
        if first == "[":
            return json.load(f)
        return [json.loads(line) for line in f if line.strip()]


def stats(index_path):
    index = load_index(index_path)
    sizes = Counter("".join(tokens) for tokens in index.values())
    colliding = sum(size for size in sizes.values() if size > 1)
    print(json.dumps({"items": len(index), "sids": len(sizes),
                      "colliding_items": colliding, "largest_group": max(sizes.values())}))


def evaluate(index_path, beams_path, ks):
    from cce import build_sid_to_group_size, compute_cce_metrics, hit_k, ndcg_k

    sizes = build_sid_to_group_size(load_index(index_path))
    records = load_beams(beams_path)
    rows = []
    totals = Counter()
    for record in records:
        beams = record["beam_sids"]
        target = record["target"]
        rows.append([1 if sid == target else 0 for sid in beams])
        totals.update(compute_cce_metrics(beams, target, sizes, ks))
    metrics = {}
    for k in ks:
        metrics[f"Hit@{k}"] = hit_k(rows, k) / len(rows)
        metrics[f"NDCG@{k}"] = ndcg_k(rows, k) / len(rows)
    metrics.update({name: value / len(rows) for name, value in totals.items()})
    print(json.dumps(metrics, sort_keys=True))


def zcr(index_path, latents_path, codebooks_path):
    import numpy as np
    import torch
    from zcr import apply_zcr

    index = load_index(index_path)
    ids = sorted(index, key=int)
    codes = np.array([[int(token.rsplit("_", 1)[1].rstrip(">")) for token in index[item]]
                      for item in ids], dtype=np.int64)
    latents = np.load(latents_path).astype(np.float32)
    codebooks = np.load(codebooks_path)
    centroids = [torch.tensor(level, dtype=torch.float32) for level in codebooks]
    size = codebooks.shape[1]
    for mode in ("optimal", "greedy"):
        _, summary = apply_zcr(codes, centroids, latents, size, mode=mode)
        print(json.dumps({"mode": mode, **summary}))


def main():
    repo, stage, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    sys.path[:0] = [f"{repo}/model", f"{repo}/tokenizer"]
    if stage == "stats":
        stats(*args)
    elif stage == "eval":
        evaluate(args[0], args[1], [int(k) for k in args[2:]] or [1, 5, 10, 20])
    elif stage == "zcr":
        zcr(*args)
    else:
        sys.exit(f"unknown stage {stage!r}")


if __name__ == "__main__":
    main()
