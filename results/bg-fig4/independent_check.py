#!/usr/bin/env python3
"""Independent check of paper 004's optimal implementable policy (eq. (15)), k = 1.

Shares no code with `models::bg`: for a given f it finds the level nu by bisection so that
the background (CBF) obtains the fraction f of the excess capacity 1 - rho, then solves the
global balance pi Q = 0 of the truncated generator by dense Gaussian elimination (not the
detailed-balance product the Rust code uses). N_* (the full-information optimum) is found
the same way over threshold policies with one randomised state (Theorem 2). Prints
M_*/N_* - 1 on a grid of f around the peak the Rust experiment reports.

Run: python3 results/bg-fig4/independent_check.py 0.663 0.665 0.666 0.667 0.668 0.669 \
     > results/bg-fig4/independent_check.txt   (the peak the experiment reports is at f = 0.667)
"""

K, RHO, NMAX = 1, 0.5, 160


def stationary(share):
    """share(n): CBF fraction of the link in state n; short flows get (1-share)/(K+n) each."""
    n = NMAX + 1
    q = [[0.0] * n for _ in range(n)]
    for i in range(n):
        if i + 1 < n:
            q[i][i + 1] = RHO
        if i > 0:
            q[i][i - 1] = i * (1.0 - share(i)) / (K + i)
        q[i][i] = -sum(q[i])
    # Solve pi Q = 0 with sum(pi) = 1: transpose, replace last equation by normalisation.
    a = [[q[j][i] for j in range(n)] for i in range(n)]
    b = [0.0] * n
    a[-1] = [1.0] * n
    b[-1] = 1.0
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        b[c], b[p] = b[p], b[c]
        for r in range(c + 1, n):
            m = a[r][c] / a[c][c]
            if m:
                for j in range(c, n):
                    a[r][j] -= m * a[c][j]
                b[r] -= m * b[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (b[r] - sum(a[r][j] * x[j] for j in range(r + 1, n))) / a[r][r]
    mean = sum(i * x[i] for i in range(n))
    frac = sum(x[i] * share(i) for i in range(n)) / (1.0 - RHO)
    return mean, frac


def bisect(g, lo, hi, it=60):
    for _ in range(it):
        mid = (lo + hi) / 2
        if g(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def implementable(f):
    share = lambda nu: (lambda n: max(0.0, 1.0 - (K + n) / (K + nu)))
    nu = bisect(lambda nu: stationary(share(nu))[1] - f, 0.0, 64.0)
    return stationary(share(nu))[0]


def optimal(f):
    # Threshold policy: the CBF takes the whole link in states n < t, the fraction theta in
    # state t, nothing above (Theorem 2: the optimum randomises at one state).
    def pol(t, theta):
        return lambda n: 1.0 if n < t else (theta if n == t else 0.0)
    t = 0
    while stationary(pol(t + 1, 0.0))[1] < f:
        t += 1
    theta = bisect(lambda th: stationary(pol(t, th))[1] - f, 0.0, 1.0)
    return stationary(pol(t, theta))[0]


if __name__ == "__main__":
    import sys
    fs = [float(a) for a in sys.argv[1:]] or [0.64 + 0.005 * i for i in range(9)]
    best = (0.0, 0.0)
    for f in fs:
        x = implementable(f) / optimal(f) - 1.0
        best = max(best, (x, f))
        print(f"f = {f:.4f}  M_*/N_* - 1 = {100 * x:.3f}%")
    print(f"peak on this grid: {100 * best[0]:.3f}% at f = {best[1]:.4f}")
