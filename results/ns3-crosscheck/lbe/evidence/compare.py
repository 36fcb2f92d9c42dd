#!/usr/bin/env python3
"""Ours against an ns-3 evidence variant on the LBE cross-check's flow lists.

    python3 results/ns3-crosscheck/lbe/evidence/compare.py CC VARIANT [--lists] [--counters]

For each `evidence/seedN/ns3_VARIANT_LOAD.csv` (ns-3's run of `lbe/seedN/flows_LOAD.csv` with
`dumbbell --bgCc=VARIANT`, otherwise as ns3/run-lbe.sh), prints per load and foreground bucket
ours (`lbe_buckets.csv`, `sim_mean_s`, the experiment's replay with our CC), ns-3's own
(`ns3_mean_s`) and the variant's mean completion time, and the background's throughput and mean
queue over the first 60 s (`lbe_counters.csv` and the variant's `.stats`). Ours' bucket means
are over the flows both ours and ns-3's own run delivered; the variant's over the flows it
delivered (the same flows but for a few that finish after the run's end in one of them).

With --lists, per load and quantity over the flow lists the variant ran: the mean of ours /
ns-3's − 1 and of ours / variant − 1, each with the half-width of its 95% interval (Student's
t, as the experiment's `lbe_gaps.csv`).

With --counters, the background's throughput and the mean queue only, from the `.stats`
alone: for the runs that stop at 61 s (`dumbbell --stop=61`, the estimator variants), whose
foreground flows still running then would be missing from their buckets (their per-flow CSVs
are not kept).
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


# Student's t, two-sided 95%, by degrees of freedom (as lab::engine::t95).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def mean_ci(v):
    m = sum(v) / len(v)
    if len(v) < 2:
        return m, float("nan")
    var = sum((x - m) ** 2 for x in v) / (len(v) - 1)
    return m, T95[len(v) - 1] * (var / len(v)) ** 0.5


def lists(rows):
    """Per (load, quantity): ours / ns-3 − 1 and ours / variant − 1 over the lists."""
    groups = {}
    for _, load, q, s, n, x in rows:
        g = groups.setdefault((load, q), [[], []])
        g[0].append(s / n - 1)
        g[1].append(s / x - 1)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["load", "quantity", "lists", "ours_vs_ns3", "ci95", "ours_vs_variant", "ci95"])
    for (load, q), (a, b) in sorted(groups.items(), key=lambda kv: kv[0][0]):
        (ma, ha), (mb, hb) = mean_ci(a), mean_ci(b)
        out.writerow([load, q, len(a), f"{ma:+.3f}", f"{ha:.3f}", f"{mb:+.3f}", f"{hb:.3f}"])


def main():
    cc, variant = sys.argv[1:3]
    ours = list(csv.DictReader(open(os.path.join(ROOT, "..", "lbe_buckets.csv"))))
    counters = list(csv.DictReader(open(os.path.join(ROOT, "..", "lbe_counters.csv"))))
    # (seed, load, quantity, ours, ns-3's own, the variant)
    rows = []
    counters_only = "--counters" in sys.argv[3:]
    pattern = f"ns3_{variant}_*.csv" + (".stats" if counters_only else "")
    for path in sorted(glob.glob(os.path.join(HERE, "seed*", pattern))):
        path = path.removesuffix(".stats")
        seed = re.search(r"seed(\d+)", path).group(1)
        load = re.search(rf"ns3_{re.escape(variant)}_([0-9.]+)\.csv$", path).group(1)
        v = {} if counters_only else variant_buckets(path)
        for r in ours:
            if r["cc"] == cc and r["load"] == load and r["seed"] == seed and r["bucket"] in v:
                rows.append((seed, load, f"{r['bucket']} s", float(r["sim_mean_s"]), float(r["ns3_mean_s"]), v[r["bucket"]]))
        bg, q = stats(path + ".stats")
        for r in counters:
            if r["cc"] == cc and r["load"] == load and r["seed"] == seed:
                rows.append((seed, load, "background Mbit/s", float(r["sim_bg_mbps"]), float(r["ns3_bg_mbps"]), bg))
                rows.append((seed, load, "mean queue packets", float(r["sim_window_queue"]), float(r["ns3_window_queue"]), q))
    if "--lists" in sys.argv[3:]:
        lists(rows)
        return
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["seed", "load", "quantity", "ours", "ns3", "variant", "ours_vs_variant"])
    for seed, load, q, s, n, x in rows:
        digits = 4 if q.endswith(" s") else 3 if q.startswith("background") else 1
        out.writerow([seed, load, q, f"{s:.{digits}f}", f"{n:.{digits}f}", f"{x:.{digits}f}", f"{s / x - 1:+.3f}"])


if __name__ == "__main__":
    main()
