#!/usr/bin/env python3
"""Reference numbers for the collaborative-space tests, computed with numpy / scikit-learn on
../shared/reference (not run in CI; the JSON it writes is committed):

    python3 scripts/cf_reference_numbers.py   # writes tests/fixtures/cf_scientific.json

- fusion: the paper's tokenizer/fusion.py recipe (L2-normalise text rows, [x; 0.5·x_cf],
  scikit-learn PCA to min(d_text, n-1, d_text+d_cf) components) on the Scientific MiniLM
  embeddings and the reference CF file; pairwise distances of 2,000 fixed pairs, with the exact
  ('full') solver and with scikit-learn's default ('auto', randomized here), which fusion.py uses.
- tightest groups: collision groups of size >= 3 of minilm/Scientific/rkmeans.index.json, the
  five with the smallest mean pairwise cosine distance (1 - cos) on the MiniLM embeddings, with
  the same figure on the reference CF embedding.
"""
import json, os
import numpy as np
from sklearn.decomposition import PCA

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
REF = os.path.join(ROOT, "..", "shared", "reference")
text = np.load(os.path.join(REF, "embeddings", "Scientific.emb-minilm.npy"))
cf = np.load(os.path.join(REF, "cf", "Scientific.emb-ppmi.npy"))
index = json.load(open(os.path.join(REF, "minilm", "Scientific", "rkmeans.index.json")))


def fuse(solver):
    norms = np.maximum(np.linalg.norm(text, axis=1, keepdims=True), 1e-8)
    combined = np.hstack([text / norms, 0.5 * cf])
    k = min(text.shape[1], combined.shape[0] - 1, combined.shape[1])
    pca = PCA(n_components=k, random_state=42, svd_solver=solver)
    out = pca.fit_transform(combined.astype(np.float64))
    return out, float(sum(pca.explained_variance_ratio_))


rng = np.random.RandomState(0)
pairs = rng.randint(0, text.shape[0], size=(2000, 2))
pairs = pairs[pairs[:, 0] != pairs[:, 1]]
full, explained = fuse("full")
auto, _ = fuse("auto")
dist = lambda m: np.linalg.norm(m[pairs[:, 0]] - m[pairs[:, 1]], axis=1)
d_full, d_auto = dist(full), dist(auto)


def mean_cos_distance(m, items):
    v = m[items].astype(np.float64)
    norms = np.linalg.norm(v, axis=1)
    cos = (v @ v.T) / np.maximum(np.outer(norms, norms), 1e-12)
    iu = np.triu_indices(len(items), 1)
    return float(np.mean(1.0 - cos[iu]))


groups = {}
for item, codes in index.items():
    groups.setdefault("".join(codes), []).append(int(item))
rows = []
for sid, items in groups.items():
    if len(items) >= 3:
        items = sorted(items)
        rows.append({"sid": sid, "items": [str(i) for i in items],
                     "mean_cosine_distance": mean_cos_distance(text, items),
                     "cf_mean_cosine_distance": mean_cos_distance(cf, items)})
rows.sort(key=lambda r: (r["mean_cosine_distance"], r["sid"]))

out = {
    "made_by": "scripts/cf_reference_numbers.py",
    "fusion": {
        "alpha": 0.5, "components": int(full.shape[1]), "explained_variance_ratio": explained,
        "pairs": pairs.tolist(), "distances_full": d_full.tolist(),
        "auto_vs_full_max_relative_difference": float(np.max(np.abs(d_auto - d_full) / d_full)),
    },
    "tightest": {"index": "minilm/Scientific/rkmeans.index.json", "min_size": 3,
                 "n_groups_considered": len(rows), "groups": rows[:5]},
}
path = os.path.join(ROOT, "tests", "fixtures", "cf_scientific.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", path, "auto vs full", out["fusion"]["auto_vs_full_max_relative_difference"])
for r in rows[:5]:
    print(r["sid"], r["items"], round(r["mean_cosine_distance"], 4), round(r["cf_mean_cosine_distance"], 4))
