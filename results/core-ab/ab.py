#!/usr/bin/env python3
"""Interleaved A/B of two criterion bench binaries: rounds of old, new, old, new ...;
per benchmark id: median of old rounds, median of new rounds, ratio new/old, and the A/A
spread (max/min over the old rounds and over the new rounds)."""
import re, subprocess, sys, statistics, json
old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
args = ["/(srpt|las|fair|psps|priority:srpt)/", "--bench", "--noplot", "--warm-up-time", "0.5", "--measurement-time", "1.5"]
unit = {'ps':1e-3,'ns':1,'µs':1e3,'us':1e3,'ms':1e6,'s':1e9}
def run(exe):
    out = subprocess.run([exe]+args, capture_output=True, text=True).stdout
    d = {}; cur = None
    for l in out.splitlines():
        m = re.match(r'^(\S+/\S+/\d+)', l)
        if m: cur = m.group(1)
        v = re.search(r'time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]', l)
        if v and cur: d[cur] = float(v.group(1))*unit[v.group(2)]
    return d
res = {"old": [], "new": []}
for r in range(rounds):
    for k, exe in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
        res[k].append(run(exe)); print(f"round {r+1} {k} done", file=sys.stderr, flush=True)
json.dump(res, open("/tmp/benchab.json","w"))
print(f"{'benchmark':38s} {'old ns':>9s} {'new ns':>9s} {'new/old':>8s} {'A/A old':>8s} {'A/A new':>8s}  verdict")
for k in res["old"][0]:
    if k not in res["new"][0]: continue
    o = [d[k] for d in res["old"] if k in d]; n = [d[k] for d in res["new"] if k in d]
    mo, mn = statistics.median(o), statistics.median(n)
    aa = max(max(o)/min(o), max(n)/min(n))
    r = mn/mo
    verdict = "within A/A" if 1/aa <= r <= aa else ("slower" if r > 1 else "faster")
    print(f"{k:38s} {mo:9.1f} {mn:9.1f} {r:8.3f} {max(o)/min(o):8.3f} {max(n)/min(n):8.3f}  {verdict}")
