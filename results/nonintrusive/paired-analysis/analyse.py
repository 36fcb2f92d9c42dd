"""Paired analysis of ../runs.csv (issue 8, part 2): is the competitor's loss under a policy
the pair taking more, or the link delivering less, or noise? Per seed, ratios to the tunnel's
`tcp` policy of the competitor's bytes, the pair's bytes and their sum (the link's goodput);
95% Student-t intervals over the seeds; and the runs a ±2% verdict would need.
Run: python3 analyse.py > README.md (from this directory)."""
import csv, math, statistics as st, sys

T975 = {7: 2.365, 19: 2.093, 99: 1.984, 199: 1.972}  # Student t, 95% two-sided, by degrees of freedom
# Files of runs (default ../runs.csv); several files are pooled, each run keeping its own seed
# (run the experiment again with `--seed` beyond the first file's seeds).
files = sys.argv[1:] or ["../runs.csv"]
rows = []
for i, name in enumerate(files):
    for r in csv.DictReader(open(name)):
        r["run"] = f"{i}:{r['run']}"
        rows.append(r)
cfgs = list(dict.fromkeys(r["config"] for r in rows))
by = {(r["run"], r["config"]): r for r in rows}
runs = sorted({r["run"] for r in rows})
ref = cfgs[0]

def ci(v):
    return st.mean(v), T975[len(v) - 1] * st.stdev(v) / math.sqrt(len(v))

def verdict(m, hw, goal=0.02):
    if abs(m - 1) + hw <= goal:
        return "within"
    if abs(m - 1) - hw > goal:
        return "outside"
    return "undecided (interval straddles the band)"

def f(r, k):
    return float(r[k])

print(f"# Paired analysis of the committed `nonintrusive` runs ({len(runs)} seeds)\n")
print(__doc__.split("\n")[0] + " " + " ".join(__doc__.split("\n")[1:4]) + "\n")
print("| configuration | competitor / tcp | pair / tcp | competitor + pair / tcp | competitor's share of the bytes delivered, change | sd of competitor ratio | runs for a ±2% interval | runs for ±1% | competitor at ±2% |")
print("|---|---|---|---|---|---|---|---|---|")
for c in cfgs[1:]:
    comp, pair, tot, share = [], [], [], []
    for k in runs:
        a, b = by[(k, ref)], by[(k, c)]
        comp.append(f(b, "competitor_bytes") / f(a, "competitor_bytes"))
        pair.append(f(b, "pair_bytes") / f(a, "pair_bytes"))
        ta = f(a, "competitor_bytes") + f(a, "pair_bytes")
        tb = f(b, "competitor_bytes") + f(b, "pair_bytes")
        tot.append(tb / ta)
        share.append(f(b, "competitor_bytes") / tb - f(a, "competitor_bytes") / ta)
    sd = st.stdev(comp)
    need = lambda m: math.ceil((1.96 * sd / m) ** 2)
    cm, cc = ci(comp); pm, pc = ci(pair); tm, tc = ci(tot); sm, sc = ci(share)
    print(f"| {c} | {cm:.3f} ± {cc:.3f} | {pm:.4f} ± {pc:.4f} | {tm:.4f} ± {tc:.4f} | {100*sm:+.2f} ± {100*sc:.2f} points | {sd:.3f} | {need(0.02)} | {need(0.01)} | {verdict(cm, cc)} |")
