#!/usr/bin/env bash
# Byte-identity of two sidlens builds (not run in CI): runs the same commands with both and
# compares stdout and stderr with cmp, after dropping the fields that name paths or times.
# Covers `zcr --out` in all three modes with every sidecar, `zcr --json` and `--groups --json`
# with given and estimated codebooks on the three Scientific reference configurations (when
# ../shared/reference is there), the demo tokenizers' zcr, eval and stats, eval on every beams
# format of the fixtures and on the reference beams (both semantics, `--groups`, `--decode`,
# `--per-user`), and zcr, eval and stats on each synthetic directory given (`sidlens synth
# --out DIR`).
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
# Every beams reader (JSON array and Lines, Parquet, MQL4GRec's save file) and every eval
# output (both semantics, groups, decoding, per-user rows) on the fixtures.
fixtures=$here/tests/fixtures
for beams in "$fixtures"/parquet/tiny.beams.*.parquet "$fixtures"/parquet/tiny.per_user.json; do
    compare "eval $beams" eval --index "$fixtures/parquet/tiny.index.json" --beams "$beams" --json --quiet
done
compare "eval ranked parquet" eval --index "$fixtures/parquet/tiny.index.json" --beams "$fixtures/parquet/tiny.ranked.pyarrow.parquet" --json --quiet
compare "eval mql4grec save file" eval --index "$fixtures/mql4grec/Tiny.index.json" --beams "$fixtures/mql4grec/save_seqrec_5.json" --json --quiet
compare_eval() { # label, index, beams: the eval outputs one beams file gives
    compare "$1 eval cce-py" eval --index "$2" --beams "$3" --compat cce-py --json --quiet
    compare "$1 eval --groups" eval --index "$2" --beams "$3" --groups 10 --json --quiet
    compare "$1 eval --decode" eval --index "$2" --beams "$3" --decode random:7 --json --quiet
    "$old" eval --index "$2" --beams "$3" --per-user "$scratch/old.jsonl" --quiet > /dev/null 2>&1
    "$new" eval --index "$2" --beams "$3" --per-user "$scratch/new.jsonl" --quiet > /dev/null 2>&1
    cmp -s "$scratch/old.jsonl" "$scratch/new.jsonl"
    tally $? "$1 eval --per-user"
}
if [ -d "$scientific" ]; then
    for variant in rkmeans_native rkmeans_zcr; do
        index=$scientific/rkmeans.index.json
        [ "$variant" = rkmeans_zcr ] && index=$scientific/rkmeans_zcr.index.json
        [ -f "$index" ] || continue
        beams=$reference/beams/Scientific/$variant.per_user.json
        compare "reference eval $variant" eval --index "$index" --beams "$beams" --json --quiet
        compare_eval "reference $variant" "$index" "$beams"
    done
    compare_eval "tricky" "$reference/beams/tricky/tricky.index.json" "$reference/beams/tricky/tricky.per_user.json"
fi
for dir in "$@"; do
    given=(--index "$dir/synthetic.index.json" --latents "$dir/latents.npy" --codebooks "$dir/codebooks.npy" --quiet)
    compare "$dir zcr" zcr "${given[@]}" --json
    compare "$dir zcr --groups" zcr "${given[@]}" --groups --json
    compare "$dir zcr, estimated" zcr --index "$dir/synthetic.index.json" --latents "$dir/latents.npy" --json --quiet
    compare "$dir eval" eval --index "$dir/synthetic.index.json" --beams "$dir/synthetic.per_user.jsonl" --json --quiet
    compare_eval "$dir" "$dir/synthetic.index.json" "$dir/synthetic.per_user.jsonl"
    if [ -f "$dir/synthetic.per_user.json" ]; then
        compare "$dir eval, JSON array" eval --index "$dir/synthetic.index.json" --beams "$dir/synthetic.per_user.json" --json --quiet
    fi
    compare "$dir stats" stats --index "$dir/synthetic.index.json" --json
done
echo "same: $same, different: $different"
[ "$different" = 0 ]
