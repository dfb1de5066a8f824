#!/usr/bin/env python3
"""Writes tests/fixtures/mql4grec/: a small index and beams saved the way MQL4GRec's
test_ddp_save.py saves them (save_dict of all_outputs / all_scores / all_targets / all_users,
json.dump(indent=4); outputs as T5's batch_decode gives them, some with spaces between tokens,
which its get_topk_results removes), and the same beams in the reference per-user layout
(beam_sids ranked by score, highest first, ties in output order, as its sorted() keeps them).
Run by hand (CI never runs Python): python3 scripts/make_mql4grec_fixture.py
"""
import json
import os
import random

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "mql4grec")
N_ITEMS, USERS, BEAMS = 30, 12, 5


def sid(codes, spaced=False):
    tokens = [f"<{chr(97 + level)}_{c}>" for level, c in enumerate(codes)]
    return (" " if spaced else "").join(tokens)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(5)
    # Collisions on purpose: 30 items in a 3 × 4 × 3 space.
    index = {str(i): [rng.randrange(3), rng.randrange(4), rng.randrange(3)] for i in range(N_ITEMS)}
    with open(os.path.join(OUT, "Tiny.index.json"), "w") as f:
        json.dump({k: [f"<{chr(97 + l)}_{c}>" for l, c in enumerate(v)] for k, v in index.items()}, f)
    sids = sorted({tuple(v) for v in index.values()})
    save_dict = {}
    all_outputs, all_scores, all_targets, all_users = [], [], [], []
    per_user = []
    for user in range(USERS):
        target = list(index[str(rng.randrange(N_ITEMS))])
        beams = rng.sample(sids, BEAMS)
        if user % 3 == 0:
            beams[rng.randrange(BEAMS)] = tuple(target)
        # sequences_scores are log-probabilities; a tie between two beams on one user.
        scores = [round(-rng.uniform(0.01, 3.0), 6) for _ in beams]
        if user == 4:
            scores[3] = scores[1]
        outputs = [sid(b, spaced=(user + j) % 4 == 0) for j, b in enumerate(beams)]
        all_outputs.extend(outputs)
        all_scores.extend(scores)
        all_targets.append(sid(target))
        all_users.append(user)
        ranked = sorted(zip(outputs, scores), key=lambda x: x[1], reverse=True)
        per_user.append({
            "beam_sids": [o.replace(" ", "") for o, _ in ranked],
            "target": sid(target),
        })
    save_dict["all_outputs"] = all_outputs
    save_dict["all_scores"] = all_scores
    save_dict["all_targets"] = all_targets
    save_dict["all_users"] = all_users
    with open(os.path.join(OUT, "save_seqrec_5.json"), "w") as f:
        json.dump(save_dict, f, indent=4)
    with open(os.path.join(OUT, "Tiny.per_user.json"), "w") as f:
        json.dump(per_user, f)


if __name__ == "__main__":
    main()
