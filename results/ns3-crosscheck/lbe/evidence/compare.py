#!/usr/bin/env python3
"""Ours against an ns-3 evidence variant on the LBE cross-check's flow lists.

    python3 results/ns3-crosscheck/lbe/evidence/compare.py CC VARIANT

For each `evidence/seedN/ns3_VARIANT_LOAD.csv` (ns-3's run of `lbe/seedN/flows_LOAD.csv` with
`dumbbell --bgCc=VARIANT`, otherwise as ns3/run-lbe.sh), prints per load and foreground bucket
ours (`lbe_buckets.csv`, `sim_mean_s`, the experiment's replay with our CC), ns-3's own
(`ns3_mean_s`) and the variant's mean completion time, and the background's throughput and mean
queue over the first 60 s (`lbe_counters.csv` and the variant's `.stats`). Ours' bucket means
are over the flows both ours and ns-3's own run delivered; the variant's over the flows it
delivered (the same flows but for a few that finish after the run's end in one of them).
"""
import csv
import glob
import os
import re
import sys

EDGES = [1, 4, 16, 64, 256]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))


def bucket(size):
    lo = 0
    for hi in EDGES:
        if size <= hi * 1460:
            return f"({lo}, {hi}]"
        lo = hi
    return f"> {lo}"


def variant_buckets(path):
    sums = {}
    for r in csv.DictReader(open(path)):
        if int(r["source"]) >= 10 or not r["transfer_s"]:
            continue
        b = sums.setdefault(bucket(int(r["size_bytes"])), [0.0, 0])
        b[0] += float(r["transfer_s"])
        b[1] += 1
    return {k: s / n for k, (s, n) in sums.items()}


def stats(path):
    rows = list(csv.DictReader(open(path)))
    r = rows[-1]
    return float(r["bg_bytes"]) * 8 / float(r["bg_window_s"]) / 1e6, float(r["window_mean_queue_packets"])


def main():
    cc, variant = sys.argv[1:3]
    ours = list(csv.DictReader(open(os.path.join(ROOT, "..", "lbe_buckets.csv"))))
    counters = list(csv.DictReader(open(os.path.join(ROOT, "..", "lbe_counters.csv"))))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["seed", "load", "quantity", "ours", "ns3", "variant", "ours_vs_variant"])
    for path in sorted(glob.glob(os.path.join(HERE, "seed*", f"ns3_{variant}_*.csv"))):
        seed = re.search(r"seed(\d+)", path).group(1)
        load = re.search(rf"ns3_{re.escape(variant)}_([0-9.]+)\.csv$", path).group(1)
        v = variant_buckets(path)
        for r in ours:
            if r["cc"] == cc and r["load"] == load and r["seed"] == seed and r["bucket"] in v:
                s, n, x = float(r["sim_mean_s"]), float(r["ns3_mean_s"]), v[r["bucket"]]
                out.writerow([seed, load, f"{r['bucket']} s", f"{s:.4f}", f"{n:.4f}", f"{x:.4f}", f"{s / x - 1:+.3f}"])
        bg, q = stats(path + ".stats")
        for r in counters:
            if r["cc"] == cc and r["load"] == load and r["seed"] == seed:
                s, n = float(r["sim_bg_mbps"]), float(r["ns3_bg_mbps"])
                out.writerow([seed, load, "background Mbit/s", f"{s:.3f}", f"{n:.3f}", f"{bg:.3f}", f"{s / bg - 1:+.3f}"])
                s, n = float(r["sim_window_queue"]), float(r["ns3_window_queue"])
                out.writerow([seed, load, "mean queue packets", f"{s:.1f}", f"{n:.1f}", f"{q:.1f}", f"{s / q - 1:+.3f}"])


if __name__ == "__main__":
    main()
