#!/usr/bin/env python3
"""Writes tests/fixtures/parquet/: a tiny index and beams as JSON, and the same data written by
pyarrow (Parquet with its default snappy, Feather v2 with its default lz4) and by polars
(Parquet with its default zstd, large strings and large lists), in every column layout sidlens
reads, so tests prove real files read and give the JSON numbers. Run by hand (CI never runs
Python):

    pip install pyarrow polars && python3 scripts/make_parquet_fixtures.py
"""
import json
import os
import random

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "parquet")
N_ITEMS, L, V, USERS, BEAMS = 30, 3, 4, 20, 6


def sid(codes):
    return "".join(f"<{'abc'[level]}_{c}>" for level, c in enumerate(codes))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(5)
    codes = [[rng.randrange(V) for _ in range(L)] for _ in range(N_ITEMS)]
    index = {str(i): [f"<{'abc'[level]}_{c}>" for level, c in enumerate(cs)] for i, cs in enumerate(codes)}
    with open(os.path.join(OUT, "tiny.index.json"), "w") as f:
        json.dump(index, f)
    records, ranked = [], []
    for u in range(USERS):
        target = rng.randrange(N_ITEMS)
        beams = [codes[rng.randrange(N_ITEMS)] for _ in range(BEAMS - 1)]
        beams.insert(rng.randrange(BEAMS), codes[target])
        if u % 5 == 0:
            beams[-1] = [V - 1, V - 1, V]  # a SID no item has
        records.append({"beam_sids": [sid(b) for b in beams], "target": sid(codes[target]), "target_item": str(target)})
        items = rng.sample(range(N_ITEMS), 5)
        ranked.append({"ranked_items": items, "scores": [float(5 - k) for k in range(5)], "target_item": target})
    with open(os.path.join(OUT, "tiny.per_user.json"), "w") as f:
        json.dump(records, f)
    with open(os.path.join(OUT, "tiny.ranked.per_user.json"), "w") as f:
        json.dump(ranked, f)

    ids = list(range(N_ITEMS))
    # pyarrow, Parquet (snappy): item_id int64 + codes list<int64>.
    pq.write_table(pa.table({"item_id": pa.array(ids, pa.int64()), "codes": pa.array(codes, pa.list_(pa.int64()))}),
                   os.path.join(OUT, "tiny.index.pyarrow.parquet"))
    # pyarrow, Feather v2 (lz4): item_id string + sid string.
    feather.write_feather(pa.table({"item_id": [str(i) for i in ids], "sid": [sid(c) for c in codes]}),
                          os.path.join(OUT, "tiny.index.pyarrow.feather"))
    # pyarrow beams: beam_sids list<string>, target string, target_item string; small row groups.
    pq.write_table(pa.Table.from_pylist(records), os.path.join(OUT, "tiny.beams.pyarrow.parquet"), row_group_size=7)
    # pyarrow beams as codes: user, beam_codes list<list<int32>>, target list<int16>, target_item
    # int64, scores float32 (decreasing, so the file's order stands).
    pq.write_table(pa.table({
        "user": pa.array(range(USERS), pa.int32()),
        "beam_codes": pa.array([[[int(x) for x in s.replace("<", " ").replace(">", " ").replace("_", " ").split() if x.isdigit()]
                                 for s in r["beam_sids"]] for r in records], pa.list_(pa.list_(pa.int32()))),
        "scores": pa.array([[float(BEAMS - k) for k in range(BEAMS)] for _ in records], pa.list_(pa.float32())),
        "target": pa.array([[int(x) for x in r["target"].replace("<", " ").replace(">", " ").replace("_", " ").split() if x.isdigit()]
                            for r in records], pa.list_(pa.int16())),
        "target_item": pa.array([int(r["target_item"]) for r in records], pa.int64()),
    }), os.path.join(OUT, "tiny.beams.codes.pyarrow.parquet"))
    # pyarrow ranked items: ranked_items list<int64>, scores list<double>, target_item int64.
    pq.write_table(pa.Table.from_pylist(ranked), os.path.join(OUT, "tiny.ranked.pyarrow.parquet"))

    import polars as pl

    # polars (zstd, large_string, large_list): item_id string + sid; beams as written by polars.
    pl.DataFrame({"item_id": [str(i) for i in ids], "sid": [sid(c) for c in codes]}).write_parquet(
        os.path.join(OUT, "tiny.index.polars.parquet"))
    pl.DataFrame(records).write_parquet(os.path.join(OUT, "tiny.beams.polars.parquet"))
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("Made by `scripts/make_parquet_fixtures.py` with pyarrow %s and polars %s; do not edit.\n"
                % (pa.__version__, pl.__version__))


if __name__ == "__main__":
    main()
