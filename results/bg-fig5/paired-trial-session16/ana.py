import csv, glob, math, statistics as st, sys
import numpy as np
P = int(sys.argv[1]) if len(sys.argv) > 1 else 15
def load(f):
    return [list(map(int, r)) for r in csv.reader(open(f))]
for f in sorted(glob.glob('tr/trace-*.csv'), key=lambda x: int(x.split('-')[1][:-4])):
    rows = load(f)
    if rows[5][6] == 0: continue  # k=0
    m0 = rows[0][1]
    if m0 == 1: continue  # adaptive
    per = []
    for s in range(300, 3000 - P, P):
        seg = rows[s:s+P+1]
        busy = all(r[2] + r[3] >= r[1] for r in seg)
        rate = (seg[-1][4] - seg[0][4]) / P
        n = st.mean(r[5] for r in seg)
        per.append((busy, rate, n))
    lr = np.array([math.log(max(r, 1)) for b, r, n in per])
    busy = np.array([b for b, r, n in per])
    ns = np.array([n for b, r, n in per])
    x = lr[busy]
    # lag-1 autocorrelation among consecutive busy pairs
    pairs = [(lr[i], lr[i+1]) for i in range(len(lr)-1) if busy[i] and busy[i+1]]
    a = np.array(pairs)
    ac = np.corrcoef(a[:,0], a[:,1])[0,1]
    dsd = np.std(a[:,1]-a[:,0], ddof=1)
    fl = np.log(m0) - np.log(ns[busy] + 1 + m0)
    res = x - fl; res -= res.mean()
    b = np.polyfit(np.log(ns[busy] + 1 + m0), x, 1)
    res2 = x - np.polyval(b, np.log(ns[busy] + 1 + m0))
    print(f, 'M', m0, 'busy %d/%d' % (busy.sum(), len(busy)), 'sd %.3f' % x.std(ddof=1), 'lag1 %.2f' % ac,
          'sd(diff) %.3f' % dsd, 'resid(fluid) %.3f' % res.std(), 'fit slope %.2f resid %.3f' % (b[0], res2.std()), 'n mean %.1f' % ns.mean())
