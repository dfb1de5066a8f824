#!/usr/bin/env bash
# Whole-process wall times of sidlens against the paper's reference flow on one synthetic set,
# medians of 3 runs after a warm-up, with CPU utilisation (100 % = one core busy) and peak
# memory, as a Markdown table. Not run in CI (needs python3 with numpy, scipy and torch; e.g.
# `python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy scipy torch`, then run this
# script with PATH=/tmp/venv/bin:$PATH).
#
#   scripts/perf_vs_reference.sh DATA_DIR COLLISIONGENREC_CHECKOUT [SIDLENS]
#
# COLLISIONGENREC_CHECKOUT needs only the paper's model/cce.py and tokenizer/zcr.py.
# DATA_DIR comes from `sidlens synth --items 1000000 --users 200000 --out DATA_DIR`; the JSON
# array beams (what the reference's test.py writes) are made from its JSON Lines beams here.
set -euo pipefail
data=$(realpath "$1")
repo=$(realpath "$2")
sidlens=$(realpath "${3:-target/release/sidlens}")
here=$(cd "$(dirname "$0")" && pwd)
index=$data/synthetic.index.json
lines=$data/synthetic.per_user.jsonl
array=$data/synthetic.per_user.json
if [ ! -e "$array" ]; then
    python3 -c "import sys; o=open(sys.argv[2],'w'); o.write('['+', '.join(l.strip() for l in open(sys.argv[1]) if l.strip())+']')" "$lines" "$array"
fi

# Prints "median_seconds median_cpu_percent max_peak_mb" of 3 runs of the command (after one
# warm-up run that also fills the page cache).
measure() {
    "$@" > /dev/null 2>&1
    for _ in 1 2 3; do
        /usr/bin/time -f "%e %P %M" -o /tmp/sidlens-perf.$$ "$@" > /dev/null 2>&1
        tail -1 /tmp/sidlens-perf.$$
    done | tr -d '%' | sort -n | awk '{s[NR]=$1; c[NR]=$2; if ($3 > m) m = $3} END {printf "%.2f %d %.0f\n", s[2], c[2], m / 1024}'
    rm -f /tmp/sidlens-perf.$$
}

row() {
    local name=$1 ours=$2 theirs=$3
    read -r s_ours c_ours m_ours <<< "$ours"
    read -r s_ref c_ref m_ref <<< "$theirs"
    printf '| %s | %s | %s %% | %s | %s %% | %s× | %s / %s |\n' "$name" "$s_ours" "$c_ours" "$s_ref" "$c_ref" \
        "$(awk -v a="$s_ref" -v b="$s_ours" 'BEGIN {printf "%.1f", a / b}')" "$m_ours" "$m_ref"
}

flow="$here/reference_flow.py $repo"
echo "| command | sidlens (s) | CPU | reference (s) | CPU | ratio | peak MB sidlens / reference |"
echo "|:---|---:|---:|---:|---:|---:|---:|"
row "stats" "$(measure "$sidlens" stats --index "$index" --json)" \
    "$(measure python3 $flow stats "$index")"
row "eval, JSON Lines beams" "$(measure "$sidlens" eval --index "$index" --beams "$lines" --k 1,5,10,20 --json --quiet)" \
    "$(measure python3 $flow eval "$index" "$lines")"
row "eval, JSON array beams" "$(measure "$sidlens" eval --index "$index" --beams "$array" --k 1,5,10,20 --json --quiet)" \
    "$(measure python3 $flow eval "$index" "$array")"
zcr_reference=$(measure python3 $flow zcr "$index" "$data/latents.npy" "$data/codebooks.npy")
row "zcr --without-mql4grec (optimal + greedy)" "$(measure "$sidlens" zcr --index "$index" --latents "$data/latents.npy" --codebooks "$data/codebooks.npy" --json --quiet --without-mql4grec)" \
    "$zcr_reference"
# sidlens' default also runs MQL4GRec's exact rule, which the reference does not compute.
row "zcr (optimal + greedy + MQL4GRec's rule)" "$(measure "$sidlens" zcr --index "$index" --latents "$data/latents.npy" --codebooks "$data/codebooks.npy" --json --quiet)" \
    "$zcr_reference"
read_floor=$( { /usr/bin/time -f "%e" cat "$index" "$lines" > /dev/null; } 2>&1 )
echo
echo "Reading the index and the JSON Lines beams from the page cache (cat): ${read_floor} s."
