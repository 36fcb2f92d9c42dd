"""Pooled paired analysis of testbed-nonintrusive runs (issue 8): the competitor's bytes and
the pair's under each tunnel policy, as ratios to the same run's `tcp` variant, with 95%
Student-t intervals over the runs, for each file alone and for all files pooled.
Each file is one `runs.csv` of `schedtcp experiment run testbed-nonintrusive`; the files must
use disjoint seeds (run k of a file uses the scenario's seed + k), so their runs are
independent sample paths and pool.
Run: python3 analyse.py FILE... > README.md (standard library only)."""
import csv, math, statistics as st, sys

GOAL = 0.02


def t975(df):
    """Two-sided 95% quantile of Student's t with `df` degrees of freedom (bisection on the
    CDF, the density integrated by Simpson's rule)."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    pdf = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)

    def cdf_half(x, n=2000):  # P(0 < T < x)
        h = x / n
        s = pdf(0) + pdf(x) + sum((4 if i % 2 else 2) * pdf(i * h) for i in range(1, n))
        return s * h / 3

    lo, hi = 0.0, 20.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf_half(mid) < 0.475 else (lo, mid)
    return (lo + hi) / 2


def ci(v):
    return st.mean(v), t975(len(v) - 1) * st.stdev(v) / math.sqrt(len(v))


def verdict(m, hw):
    if abs(m - 1) + hw <= GOAL:
        return "within ±2%"
    if abs(m - 1) - hw > GOAL:
        return "outside ±2%"
    return "undecided (interval straddles ±2%)"


def load(name):
    rows = list(csv.DictReader(open(name)))
    runs = {}
    for r in rows:
        runs.setdefault(r["run"], {})[r["variant"]] = r
    return runs


files = sys.argv[1:]
sets = [(name, load(name)) for name in files]
policies = []
for _, runs in sets:
    for per in runs.values():
        for v in per:
            if v != "tcp" and v not in policies:
                policies.append(v)

print("# testbed-nonintrusive: runs pooled over several experiment runs\n")
print(" ".join(l.strip() for l in __doc__.split("Run:")[0].split("\n")) + "\n")
print("| runs of | policy | runs | competitor / under tcp (95% CI) | s.d. per run | pair / under tcp (95% CI) | pair E[T] / under tcp (95% CI) | verdict (competitor) |")
print("|---|---|---|---|---|---|---|---|")
groups = [(name, [runs]) for name, runs in sets] + (
    [("all pooled", [runs for _, runs in sets])] if len(sets) > 1 else [])
for label, group in groups:
    for p in policies:
        comp, pair, et = [], [], []
        for runs in group:
            for per in runs.values():
                if p in per and "tcp" in per:
                    a, b = per["tcp"], per[p]
                    comp.append(float(b["competitor_bytes"]) / float(a["competitor_bytes"]))
                    pair.append(float(b["pair_bytes"]) / float(a["pair_bytes"]))
                    et.append(float(b["mean_completion_s"]) / float(a["mean_completion_s"]))
        if len(comp) < 2:
            continue
        (cm, cc), (pm, pc), (em, ec) = ci(comp), ci(pair), ci(et)
        print(f"| {label} | {p} | {len(comp)} | {cm:.3f} ± {cc:.3f} | {st.stdev(comp):.3f} | "
              f"{pm:.3f} ± {pc:.3f} | {em:.3f} ± {ec:.3f} | {verdict(cm, cc)} |")
