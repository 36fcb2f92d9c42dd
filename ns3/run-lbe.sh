#!/bin/sh
# The LBE cross-check (outside CI): background transfers over ns-3's TcpLedbat and TcpLp
# against ours, beside the same foreground flows.
#   ns3/run-lbe.sh [VENV]
# Setting S1p (run2c-sim's S1: 10 Mbit/s, 1 + 4 + 1 ms, 100-packet drop-tail bottleneck), two
# more pairs (sources 10 and 11) for two long background transfers starting at 0 s and 1 s;
# the foreground is workload D1 at each load (`ns3_replay gen`), SACK everywhere. For each
# flow list (generator seed) and load it writes results/ns3-crosscheck/lbe/seedN/flows_LOAD.csv
# (the foreground flows and the two background rows, in arrival order) and ns-3's outputs
# for each background congestion control, ns3_CC_LOAD.csv (+ .stats; an abort leaves
# .crash). The experiment ns3-crosscheck re-runs ours on the same flows and compares.
# LOADS, SEEDS, CCS, SECS and OUT override the defaults; NS3 names an already built dumbbell
# (skips ns3/build.sh, so that several runs can share one build).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-/work/ns3venv}
LOADS=${LOADS:-"0.3 0.5 0.7"}
SEEDS=${SEEDS:-"1 2 3 4 5"}
CCS=${CCS:-"ledbat tcp-lp"}
SECS=${SECS:-60}
OUT=${OUT:-"$ROOT/results/ns3-crosscheck/lbe"}
# A background transfer's size: more than the run can carry (it never finishes).
BG_BYTES=1000000000000
NS3=${NS3:-$("$ROOT/ns3/build.sh" "$VENV")}
cargo build -q -p sim --example ns3_replay
REPLAY="$ROOT/target/debug/examples/ns3_replay"
for seed in $SEEDS; do
    dir="$OUT/seed$seed"
    mkdir -p "$dir"
    for load in $LOADS; do
        flows="$dir/flows_$load.csv"
        "$REPLAY" gen S1p "$load" "$SECS" "$seed" "$flows.fg"
        {
            head -n 1 "$flows.fg"
            {
                tail -n +2 "$flows.fg"
                printf '0.000000000,%s,10\n1.000000000,%s,11\n' "$BG_BYTES" "$BG_BYTES"
            } | sort -s -t, -k1,1g
        } >"$flows"
        rm -f "$flows.fg"
        for cc in $CCS; do
            out="$dir/ns3_${cc}_$load.csv"
            rm -f "$out" "$out.stats" "$out.crash"
            if ! "$NS3" --setting=S1p --sack=1 --pairs=12 --bgFrom=10 --bgCc="$cc" \
                --bgWindow="$SECS" --flows="$flows" --out="$out" >/dev/null 2>"$out.err"; then
                grep -E "NS_ASSERT|NS_FATAL|terminate" "$out.err" >"$out.crash" || true
                rm -f "$out" "$out.stats"
            fi
            rm -f "$out.err"
            echo "seed $seed load $load $cc done"
        done
    done
done
