"""Reference values for Erlang B and Engset, computed independently of the Rust recursions.

Direct definitions summed in 60-digit arithmetic (mpmath), with exact binomials/factorials:
  B(k, a)    = (a^k / k!) / sum_{i=0}^k a^i / i!
  E(m, q, r) = C(m-1, q) r^q / sum_{i=0}^q C(m-1, i) r^i       (paper 004, Proposition 1)
Run:  python3 erlang_engset_mpmath.py   (mpmath 1.3.0 was used to produce the committed table)
"""
from mpmath import mp, mpf, factorial, binomial, nstr

mp.dps = 60

def erlang_b(k, a):
    a = mpf(float(a))  # the same double the Rust test parses
    terms = [a**i / factorial(i) for i in range(k + 1)]
    return terms[-1] / sum(terms)

def engset(m, q, r):
    r = mpf(float(r))  # the same double the Rust test parses
    terms = [binomial(m - 1, i) * r**i for i in range(q + 1)]
    return terms[-1] / sum(terms)

ERLANG = [(1, "0.5"), (2, "1"), (10, "5"), (10, "12.5"), (50, "40"), (100, "80"),
          (100, "120"), (500, "480"), (1000, "950"), (1000, "1100"), (2000, "1900.5"),
          (5000, "4800"), (5000, "5000"), (5000, "5500"), (5000, "4000"), (3000, "0.75")]
ENGSET = [(4, 3, "0.5"), (11, 10, "0.25"), (30, 10, "1"), (200, 10, "0.111111111111111111"),
          (1000, 1, "0.0010010010010010010"), (2000, 100, "0.0526315789473684211"),
          (5001, 5000, "1000"), (5000, 2000, "0.6"), (5000, 10, "0.002"), (5001, 50, "0.0101010101010101")]

if __name__ == "__main__":
    print("// Erlang B: (k, a, B)")
    for k, a in ERLANG:
        print(f'    ({k}, {a}, {nstr(erlang_b(k, a), 20, min_fixed=1, max_fixed=0)}),')
    print("// Engset: (m, q, r, E)")
    for m, q, r in ENGSET:
        print(f'    ({m}, {q}, {r}, {nstr(engset(m, q, r), 20, min_fixed=1, max_fixed=0)}),')
