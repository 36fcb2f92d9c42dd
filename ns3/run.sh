#!/bin/sh
# The ns-3 cross-check of crates/sim (outside CI; needs `pip install ns3` in a venv):
#   python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install ns3
#   ns3/run.sh [VENV]
# For each load and TCP (NewReno without SACK, then with SACK) it generates one flow list
# with the simulator's workload generator, replays it in ns-3 (ns3/s1_dumbbell.cc) and in
# the simulator (crates/sim/examples/ns3_replay.rs), and leaves the per-flow outputs in
# results/ns3-crosscheck/runs/. Then `cargo run --release -p lab --example run_experiment --
# ns3-crosscheck --out results/ns3-crosscheck` writes the comparison.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-/work/ns3venv}
LOADS=${LOADS:-"0.5 0.6 0.7 0.8 0.9"}
SECS=${SECS:-60}
SEED=${SEED:-1}
OUT="$ROOT/results/ns3-crosscheck/runs"
mkdir -p "$OUT"
NS3=$("$ROOT/ns3/build.sh" "$VENV")
cargo build --release -q -p sim --example ns3_replay
REPLAY="$ROOT/target/release/examples/ns3_replay"
for load in $LOADS; do
    flows="$OUT/flows_$load.csv"
    "$REPLAY" gen "$load" "$SECS" "$SEED" "$flows"
    for tcp in newreno sack; do
        sack=0
        [ "$tcp" = sack ] && sack=1
        "$NS3" --flows="$flows" --out="$OUT/ns3_${tcp}_$load.csv" --sack=$sack 2>/dev/null
        "$REPLAY" run "$flows" "$tcp" "$OUT/sim_${tcp}_$load.csv"
        echo "load $load $tcp done"
    done
done
