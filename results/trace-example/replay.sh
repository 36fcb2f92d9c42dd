#!/bin/sh
# Replays the capture's flow list (flows.csv, from `schedtcp trace flows`) through the
# packet-level simulator under plain TCP and the gtcp core (`schedtcp` driver) with several
# policies. Run from the repository root:
#   cargo build --release -p sim --example run_scenario && sh results/trace-example/replay.sh
set -eu
OUT=results/trace-example
RUN=target/release/examples/run_scenario
echo "driver,policy,flows,delivered,mean_transfer_s" > "$OUT/replay.csv"
for dp in tcp:tcp schedtcp:tcp schedtcp:srpt schedtcp:fair schedtcp:las schedtcp:psps; do
    d=${dp%%:*}; p=${dp#*:}
    sc=$(mktemp)
    { sed "s/^driver = .*/driver = \"$d\"/" "$OUT/replay-base.toml"; printf '\n[gtcp]\npolicy = "%s"\n' "$p"; } > "$sc"
    line=$("$RUN" "$sc" | grep '^delivered')
    rm -f "$sc"
    # "delivered N of M flows, mean transfer time X s"
    echo "$line" | awk -v d="$d" -v p="$p" '{print d "," p "," $4 "," $2 "," $9}' >> "$OUT/replay.csv"
done
cat "$OUT/replay.csv"
