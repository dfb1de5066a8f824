#!/usr/bin/env bash
# Byte-identity of two sidlens builds (not run in CI): runs the same commands with both and
# compares stdout and stderr with cmp, after dropping the fields that name paths or times.
# Covers `zcr --out` in all three modes with every sidecar, `zcr --json` and `--groups --json`
# with given and estimated codebooks on the three Scientific reference configurations (when
# ../shared/reference is there), the demo tokenizers' zcr, eval and stats, and zcr, eval and
# stats on each synthetic directory given (`sidlens synth --out DIR`).
#
#   scripts/compare_outputs.sh OLD_SIDLENS NEW_SIDLENS [SYNTH_DIR ...]
set -uo pipefail
old=$(realpath "$1")
new=$(realpath "$2")
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
reference=$here/../shared/reference
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
same=0
different=0
strip() { sed -E 's/"(elapsed|seconds|generated_at|created|timestamp|path|out|written)[^"]*": *("[^"]*"|[0-9.e-]+)//g'; }
tally() {
    if [ "$1" = 0 ]; then same=$((same + 1)); else different=$((different + 1)); echo "differs: $2"; fi
}
compare() { # label, sidlens arguments…
    local label=$1
    shift
    "$old" "$@" 2> "$scratch/old.err" | strip > "$scratch/old.out"
    "$new" "$@" 2> "$scratch/new.err" | strip > "$scratch/new.out"
    cmp -s "$scratch/old.out" "$scratch/new.out" && cmp -s "$scratch/old.err" "$scratch/new.err"
    tally $? "$label"
}
scientific=$reference/minilm/Scientific
if [ -d "$scientific" ]; then
    latents=$reference/embeddings/Scientific.emb-minilm.npy
    for config in rkmeans rkmeans_v64 rkmeans_l2_v64; do
        codebooks=$scientific/codebooks.npy
        [ "$config" = rkmeans_v64 ] && codebooks=$scientific/codebooks_v64.npy
        [ "$config" = rkmeans_l2_v64 ] && codebooks=$scientific/codebooks_l2_v64.npy
        given=(--index "$scientific/$config.index.json" --latents "$latents" --codebooks "$codebooks" --quiet)
        for mode in optimal greedy mql4grec; do
            rm -rf "$scratch/o" "$scratch/n"
            mkdir -p "$scratch/o" "$scratch/n"
            "$old" zcr "${given[@]}" --mode "$mode" --out "$scratch/o/x.index.json" > /dev/null 2>&1
            "$new" zcr "${given[@]}" --mode "$mode" --out "$scratch/n/x.index.json" > /dev/null 2>&1
            for file in "$scratch"/o/*; do
                cmp -s <(strip < "$file") <(strip < "$scratch/n/$(basename "$file")")
                tally $? "zcr --out $config $mode $(basename "$file")"
            done
        done
        compare "zcr $config" zcr "${given[@]}" --json
        compare "zcr --groups $config" zcr "${given[@]}" --groups --json
        compare "zcr $config, estimated" zcr --index "$scientific/$config.index.json" --latents "$latents" --json --quiet
        compare "zcr --groups $config, estimated" zcr --index "$scientific/$config.index.json" --latents "$latents" --groups --json --quiet
    done
else
    echo "notice: $reference not found; the reference configurations are skipped"
fi
for dir in "$here"/demo_data/indexes/*/; do
    compare "demo zcr $dir" zcr --index "$dir/Workshop.index.json" --latents "$here/demo_data/Workshop.emb-tfidf.npy" --json --quiet
    compare "demo zcr --groups $dir" zcr --index "$dir/Workshop.index.json" --latents "$here/demo_data/Workshop.emb-tfidf.npy" --groups --json --quiet
    for beams in "$dir"/*.per_user.json; do
        compare "demo eval $beams" eval --index "$dir/Workshop.index.json" --beams "$beams" --json --quiet
    done
    compare "demo stats $dir" stats --index "$dir/Workshop.index.json" --json
done
for dir in "$@"; do
    given=(--index "$dir/synthetic.index.json" --latents "$dir/latents.npy" --codebooks "$dir/codebooks.npy" --quiet)
    compare "$dir zcr" zcr "${given[@]}" --json
    compare "$dir zcr --groups" zcr "${given[@]}" --groups --json
    compare "$dir zcr, estimated" zcr --index "$dir/synthetic.index.json" --latents "$dir/latents.npy" --json --quiet
    compare "$dir eval" eval --index "$dir/synthetic.index.json" --beams "$dir/synthetic.per_user.jsonl" --json --quiet
    compare "$dir stats" stats --index "$dir/synthetic.index.json" --json
done
echo "same: $same, different: $different"
[ "$different" = 0 ]
