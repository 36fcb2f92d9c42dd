#!/bin/bash
# Ten seed groups of a bg-fig5 scenario (4 repeats each, 40 repeats in all) under one binary and
# one scenario override; prints, per k and load, the access-adaptive background goodput over its
# arrivals: mean of the ten group means ± 95% t interval (9 d.o.f.), the worst group, mean delay
# over vanilla's, check engaged, mean M, then the ten group means (seeds 1, 11, ..., 91).
#
#   ab.sh <schedtcp binary> <out dir> [<scenario line, e.g. "adaptive_shortfall = 0.15">]
#   SCEN=<scenario.toml> (default: scenario.toml here)  RHOS="0.6 0.65" (default "0.4 0.5")
set -euo pipefail
bin=$1; d=$2; extra=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
scen=${SCEN:-$here/scenario.toml}
mkdir -p "$d"
for seed in 1 11 21 31 41 51 61 71 81 91; do
  sed -e "s/^seed = 1$/seed = $seed/" "$scen" > "$d/s$seed.toml"
  if [ -n "$extra" ]; then
    key=${extra%% =*}
    sed -i "/^$key =/d" "$d/s$seed.toml"
    sed -i "/^adaptive_period_s/a $extra" "$d/s$seed.toml"
  fi
  "$bin" experiment run bg-fig5 --scenario "$d/s$seed.toml" --out "$d/o$seed" >/dev/null 2>&1
done
python3 - "$d" ${RHOS:-0.4 0.5} <<'PY'
import csv, statistics as st, sys
d = sys.argv[1]
for rho in sys.argv[2:]:
    for g in ['k=0', 'k=1']:
        c, dl, e, m = [], [], [], []
        for seed in range(1, 92, 10):
            for r in csv.DictReader(open(f'{d}/o{seed}/bg-fig5.csv')):
                if r['policy'] == 'access-adaptive' and r['group'] == g and r['rho'] == rho:
                    c.append(float(r['bg_throughput_vs_arrived'])); dl.append(float(r['norm_delay']))
                    e.append(float(r['engaged'])); m.append(float(r['mean_m']))
        print(g, rho, 'carried %.4f ± %.4f worst %.3f' % (st.mean(c), 2.262 * st.stdev(c) / len(c) ** .5, min(c)),
              'delay %.3f engaged %.2f M %.2f' % (st.mean(dl), st.mean(e), st.mean(m)),
              ' '.join('%.3f' % x for x in c))
PY
