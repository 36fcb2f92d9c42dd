#!/bin/sh
# Captures the project's testbed running a Table 2-like workload (paper 000, Section 6.2:
# Poisson arrivals, Lomax sizes, load 0.9, scaled by 0.25) and analyses the capture.
# Needs root, tcpdump and ethtool; run from the repository root after `cargo build -p schedtcp`:
#   sh results/trace-example/capture.sh
# The capture is taken inside the router namespace on r0 (the origin side of the bottleneck),
# snap length 96, only the plain-TCP variant's flows (to the target's port 9000; the tunnel's
# variant reaches the target inside the destination namespace, never through the router).
set -eu
OUT=results/trace-example
BIN=${SCHEDTCP_BIN:-target/debug/schedtcp}
rm -f "$OUT/capture.pcap" "$OUT/capture.pcap.gz"
"$BIN" testbed run table2 --scenario "$OUT/testbed-scenario.toml" --out "$OUT/testbed" > "$OUT/testbed.log" 2>&1 &
RUN=$!
i=0
until ip netns exec tr-router ip -br link show up 2> /dev/null | grep -q '^r0'; do
    i=$((i + 1)); [ $i -lt 600 ] || { echo "no tr-router namespace"; exit 1; }; sleep 0.1
done
# Segmentation offloads off (needs ethtool), so the capture shows wire-sized segments as a
# router on a real link would, not the 64 KB aggregates veth passes along.
for nd in tr-origin:o0 tr-router:r0 tr-router:r1 tr-dest:d0; do
    ip netns exec "${nd%%:*}" ethtool -K "${nd#*:}" tso off gso off gro off 2> /dev/null || true
done
ip netns exec tr-router tcpdump --immediate-mode -Z root -i r0 -s 96 -U -w "$OUT/capture.pcap" 'tcp port 9000' 2> "$OUT/tcpdump.log" &
TD=$!
wait $RUN
# The testbed removes its namespaces and the processes in them (tcpdump too) when it ends.
kill "$TD" 2> /dev/null || true
wait "$TD" 2> /dev/null || true
gzip -9 "$OUT/capture.pcap"
