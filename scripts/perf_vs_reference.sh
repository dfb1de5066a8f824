#!/usr/bin/env bash
# Whole-process wall times of sidlens against the paper's reference flow on one synthetic set,
# the two run alternately (RUNS times each, default 5, after a warm-up), medians with CPU
# utilisation (100 % = one core busy) and peak memory, as a Markdown table. Paths must not
# hold spaces. Not run in CI (needs python3 with numpy, scipy and torch; e.g.
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

runs=${RUNS:-5}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Prints "median_seconds median_cpu_percent max_peak_mb" of the runs timed into file $1.
summary() {
    tr -d '%' < "$1" | sort -n | awk '{s[NR]=$1; c[NR]=$2; if ($3 > m) m = $3}
        END {k = int((NR + 1) / 2); printf "%.3f %d %.0f\n", s[k], c[k], m / 1024}'
}

# Runs shell command line $2 once and appends "wall_seconds cpu_percent peak_kb" to file $1.
# GNU time's %e has two decimals, too coarse for a 0.25 s run (±2 % of the ratio), so the
# wall time is taken in nanoseconds around it; CPU and peak memory are GNU time's.
timed() {
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f "%P %M" -o "$scratch/one" bash -c "exec $2" > /dev/null 2>&1
    end=$(date +%s%N)
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", (b - a) / 1e9}') $(cat "$scratch/one")" >> "$1"
}

# One table row: sidlens' command ($2) and the reference's ($3), each a shell command line,
# run alternately $runs times after a warm-up of each (which also fills the page cache), so
# that a machine whose speed drifts over minutes slows both alike; medians of each.
pair() {
    local name=$1 ours=$2 theirs=$3
    : > "$scratch/ours"
    : > "$scratch/theirs"
    bash -c "exec $ours" > /dev/null 2>&1
    bash -c "exec $theirs" > /dev/null 2>&1
    for _ in $(seq "$runs"); do
        timed "$scratch/ours" "$ours"
        timed "$scratch/theirs" "$theirs"
    done
    read -r s_ours c_ours m_ours <<< "$(summary "$scratch/ours")"
    read -r s_ref c_ref m_ref <<< "$(summary "$scratch/theirs")"
    printf '| %s | %s | %s %% | %s | %s %% | %s× | %s / %s |\n' "$name" "$s_ours" "$c_ours" "$s_ref" "$c_ref" \
        "$(awk -v a="$s_ref" -v b="$s_ours" 'BEGIN {printf "%.1f", a / b}')" "$m_ours" "$m_ref"
}

flow="python3 $here/reference_flow.py $repo"
zcr="$sidlens zcr --index $index --latents $data/latents.npy --codebooks $data/codebooks.npy --json --quiet"
echo "| command | sidlens (s) | CPU | reference (s) | CPU | ratio | peak MB sidlens / reference |"
echo "|:---|---:|---:|---:|---:|---:|---:|"
pair "stats" "$sidlens stats --index $index --json" "$flow stats $index"
pair "eval, JSON Lines beams" "$sidlens eval --index $index --beams $lines --k 1,5,10,20 --json --quiet" \
    "$flow eval $index $lines"
pair "eval, JSON array beams" "$sidlens eval --index $index --beams $array --k 1,5,10,20 --json --quiet" \
    "$flow eval $index $array"
pair "zcr --without-mql4grec (optimal + greedy)" "$zcr --without-mql4grec" \
    "$flow zcr $index $data/latents.npy $data/codebooks.npy"
# sidlens' default also runs MQL4GRec's exact rule, which the reference does not compute.
pair "zcr (optimal + greedy + MQL4GRec's rule)" "$zcr" \
    "$flow zcr $index $data/latents.npy $data/codebooks.npy"
read_floor=$( { /usr/bin/time -f "%e" cat "$index" "$lines" > /dev/null; } 2>&1 )
echo
echo "Reading the index and the JSON Lines beams from the page cache (cat): ${read_floor} s."
