"""Independent check of `sidlens eval --decode popular|random` and `stats --interactions` on the
shared Scientific data (not run in CI): popularity from each user's sequence without its last two
items, ties by item id; benign = items of a collision group sharing some user's training history."""
import json
import sys
from collections import Counter, defaultdict

ref = sys.argv[1] if len(sys.argv) > 1 else "../shared/reference"
variant = sys.argv[2] if len(sys.argv) > 2 else "rkmeans_native"
data = f"{ref}/CollisionGenRec/data/Scientific"
index = json.load(open(f"{data}/indexes/{variant}/Scientific.index.json"))
inter = json.load(open(f"{data}/Scientific.inter.json"))
beams = json.load(open(f"{ref}/beams/Scientific/{variant}.per_user.json"))
sid = {str(i): "".join(c) for i, c in index.items()}
groups = defaultdict(list)
for i, s in sid.items():
    groups[s].append(i)
count = Counter()
for seq in inter.values():
    for i in seq[:-2]:
        count[str(i)] += 1
popular = {s: min(items, key=lambda i: (-count[i], int(i))) for s, items in groups.items()}
for k in (1, 5, 10, 20):
    hits = 0.0
    for rec in beams:
        t = str(rec["target_item"])
        seen = []
        for b in rec["beam_sids"]:
            if b in groups and b not in seen:
                seen.append(b)
        if sid[t] in seen[:k] and popular[sid[t]] == t:
            hits += 1
    print(f"DecodedHit@{k} (popular) = {hits / len(beams)!r}")
co = set()
for seq in inter.values():
    by = defaultdict(set)
    for i in seq[:-2]:
        s = sid.get(str(i))
        if s is not None and len(groups[s]) > 1:
            by[s].add(str(i))
    for items in by.values():
        if len(items) > 1:
            co |= items
print("items co-occurring:", len(co), "of", sum(len(v) for v in groups.values() if len(v) > 1))
