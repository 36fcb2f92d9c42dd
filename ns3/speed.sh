#!/bin/sh
# The simulator's speed beside ns-3's (issue 13), on the same flows: paper 003's S1/D1 as
# `dumbbell_speed` runs it (Scenario::speed_benchmark: 10 Mbit/s everywhere, 1 + 4 + 1 ms,
# 100-packet drop-tail bottleneck, initial window 3, maximum window 30, load 0.8), SECS
# simulated seconds, seed SEED, TCP NewReno with SACK (TCP=sack, the default: ns-3 aborts on
# its own assertion `m_congState != CA_DISORDER` 29.6 s into these flows without SACK, as
# in the cross-check at load 0.9) or without (TCP=newreno). ns-3 (ns3/dumbbell.cc, --traces=0)
# replays the flow list `ns3_replay speed-flows` writes, stopped at SECS; its packets
# forwarded at the bottleneck come from its queue's own counters. ns-3 runs twice: as the
# cross-check runs it (receiver sockets never closed, TIME_WAIT 2 x 120 s: every finished
# flow's endpoints stay in its nodes' demultiplexer lists, searched for every packet) and
# tuned for speed (--closeReceivers=1 --msl=1: receivers close after the last byte, TIME_WAIT
# 2 s; each flow then costs one FIN exchange more). ns-3 has drop-tail only;
# the simulator runs droptail, run and run2c:20. Each is run RUNS times; medians printed.
#   ns3/speed.sh [VENV]      (RUNS=5 SECS=300 SEED=1 TCP=sack by default)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-/work/ns3venv}
RUNS=${RUNS:-5}
SECS=${SECS:-300}
SEED=${SEED:-1}
TCP=${TCP:-sack}
case "$TCP" in sack) SACK=1 ;; newreno) SACK=0 ;; *) echo "TCP: sack or newreno" >&2; exit 2 ;; esac
NS3=$("$ROOT/ns3/build.sh" "$VENV")
cargo build --release -q -p sim --example ns3_replay --example dumbbell_speed
EX="$ROOT/target/release/examples"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$EX/ns3_replay" speed-flows "$SECS" "$SEED" "$TMP/flows.csv"
echo "uptime: $(uptime)"
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
i=0
while [ $i -lt "$RUNS" ]; do
    for cfg in kept closed; do
        extra=""
        [ "$cfg" = closed ] && extra="--closeReceivers=1 --msl=1"
        if ! "$NS3" --setting=S1 --initialWindow=3 --sack=$SACK --stop="$SECS" --traces=0 \
            $extra --flows="$TMP/flows.csv" --out="$TMP/ns3.csv" >>"$TMP/ns3.log" \
            2>"$TMP/ns3.err"; then
            echo "ns-3 aborted:" >&2; grep NS_ASSERT "$TMP/ns3.err" >&2; exit 1
        fi
        tail -n 1 "$TMP/ns3.csv.stats" >>"$TMP/ns3_$cfg.stats"
    done
    for q in droptail run run2c:20; do
        "$EX/dumbbell_speed" "$SECS" "$SEED" "$q" "$TCP" >"$TMP/sim.out"
        w=$(sed -n 's/.* in \([0-9.]*\) s wall.*/\1/p' "$TMP/sim.out")
        f=$(sed -n 's/^bottleneck packets\/s (wall): \([0-9]*\) forward.*/\1/p' "$TMP/sim.out")
        echo "$w $f" >>"$TMP/sim_$q"
    done
    i=$((i + 1))
done
echo "uptime: $(uptime)"
# .stats columns: forwarded (13), forwarded_both (14), wall_s (15).
echo "S1/D1, $SECS s, seed $SEED, $TCP, medians of $RUNS runs"
printf '%-34s %10s %18s\n' engine/discipline "wall s" "forwarded/wall s"
for cfg in kept closed; do
    printf '%-34s %10s %18s\n' "ns-3.44 droptail, sockets $cfg" \
        "$(cut -d, -f15 "$TMP/ns3_$cfg.stats" | median)" \
        "$(awk -F, '{print $13 / $15}' "$TMP/ns3_$cfg.stats" | median | xargs printf '%.0f')"
done
for q in droptail run run2c:20; do
    printf '%-34s %10s %18s\n' "sim $q" "$(cut -d' ' -f1 "$TMP/sim_$q" | median)" \
        "$(cut -d' ' -f2 "$TMP/sim_$q" | median | xargs printf '%.0f')"
done
for cfg in kept closed; do
    echo "ns-3 sockets $cfg: forwarded $(cut -d, -f13 "$TMP/ns3_$cfg.stats" | head -n 1); wall s: $(cut -d, -f15 "$TMP/ns3_$cfg.stats" | tr '\n' ' ')"
done
for q in droptail run run2c:20; do echo "sim $q (wall s, forwarded/wall s): $(tr '\n' ';' <"$TMP/sim_$q")"; done
