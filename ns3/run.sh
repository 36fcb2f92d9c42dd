#!/bin/sh
# The ns-3 cross-check of crates/sim (outside CI; needs `pip install ns3` in a venv):
#   python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install ns3
#   ns3/run.sh [VENV]
# For each load and TCP (NewReno without SACK, then with SACK) it generates one flow list
# with the simulator's workload generator, replays it in ns-3 (ns3/dumbbell.cc) and in the
# simulator (crates/sim/examples/ns3_replay.rs), and leaves the per-flow outputs in
# results/ns3-crosscheck/runs/ (SETTING=S1, the default) or results/ns3-crosscheck/runs-s2/
# (SETTING=S2). Then `cargo run --release -p lab --example run_experiment -- ns3-crosscheck
# --out results/ns3-crosscheck` writes the comparison.
# SETTING=S1 is the cross-check's first S1: every link 1 ms (--bottleneckDelayMs=1), as
# Scenario::ns3 builds it (sim::topology::Ns3Setting::S1); SETTING=S1p is run2c-sim's S1
# (1 + 4 + 1 ms, the paper's 6 ms one way; outputs in results/ns3-crosscheck/runs-s1p/);
# S2 is run2c-sim's (2 Mbit/s access, 10 + 40 + 10 ms).
# LOADS, SECS, SEED, TCPS and OUT override the defaults; NS3 and REPLAY name an already built
# dumbbell and ns3_replay (several run.sh at once, one build).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-/work/ns3venv}
SETTING=${SETTING:-S1}
LOADS=${LOADS:-"0.5 0.6 0.7 0.8 0.9"}
SECS=${SECS:-60}
SEED=${SEED:-1}
TCPS=${TCPS:-"newreno sack"}
case "$SETTING" in
S1) OUT=${OUT:-"$ROOT/results/ns3-crosscheck/runs"}; EXTRA="--bottleneckDelayMs=1" ;;
S1p) OUT=${OUT:-"$ROOT/results/ns3-crosscheck/runs-s1p"}; EXTRA="" ;;
S2) OUT=${OUT:-"$ROOT/results/ns3-crosscheck/runs-s2"}; EXTRA="" ;;
*) echo "SETTING must be S1, S1p or S2" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
NS3=${NS3:-$("$ROOT/ns3/build.sh" "$VENV")}
if [ -z "${REPLAY:-}" ]; then
    cargo build --release -q -p sim --example ns3_replay
    REPLAY="$ROOT/target/release/examples/ns3_replay"
fi
for load in $LOADS; do
    flows="$OUT/flows_$load.csv"
    "$REPLAY" gen "$SETTING" "$load" "$SECS" "$SEED" "$flows"
    for tcp in $TCPS; do
        sack=0
        [ "$tcp" = sack ] && sack=1
        ns3out="$OUT/ns3_${tcp}_$load.csv"
        rm -f "$ns3out" "$ns3out.stats" "$ns3out.crash"
        # An ns-3 abort leaves its message in .crash instead of outputs (the experiment
        # reports it).
        if ! "$NS3" --setting="$SETTING" $EXTRA --flows="$flows" --out="$ns3out" --sack=$sack \
            2>"$ns3out.err"; then
            grep -E "NS_ASSERT|NS_FATAL|terminate" "$ns3out.err" >"$ns3out.crash" || true
            rm -f "$ns3out" "$ns3out.stats"
        fi
        rm -f "$ns3out.err"
        "$REPLAY" run "$SETTING" "$flows" "$tcp" "$OUT/sim_${tcp}_$load.csv"
        echo "$SETTING load $load $tcp done"
    done
done
