#!/usr/bin/env python3
"""Independent reference for CG's model (Lemma 1, Eq. 2-5, App. B), in mpmath at 50 digits.

Written apart from src/protocols/gossip/plan.rs (different language, exact-ish arithmetic, the
paper's formulas taken literally, products computed term by term): the numbers it prints are
pinned in lab/tests/protocols/gossip_plan.rs. Run: python3 lab/tests/data/cg_plan_reference.py
"""
from mpmath import mp, mpf, binomial

mp.dps = 50


def c_series(N, n, L, O, t_max):
    """Lemma 1 in units of O: c[k] = c(kO); c(t < 0) = 0, c(0) = 1."""
    l = L // O
    q = 1 - mpf(1) / (N - 1)
    c = {}
    get = lambda k: c[k] if k >= 0 else mpf(0)
    c[0] = mpf(1)
    for k in range(0, t_max):
        c[k + 1] = c[k] + (n - c[k]) * (1 - q ** get(k - l - 1))
    return c


def tail_k(N, cg, K):
    """sum_{i=K+1}^{N-1} p_i with p_i = alpha_i prod_{j=i+1}^{N-1}(1-alpha_j) (Eq. 2)."""
    alpha = [1 - (1 - cg**2 * (N - cg) ** k / mpf(N) ** (k + 2)) ** N for k in range(N)]
    total = mpf(0)
    prod = mpf(1)  # prod_{j=i+1}^{N-1}
    tails = [None] * N
    for i in range(N - 1, -1, -1):
        tails[i] = total  # sum_{m=i+1}^{N-1} p_m
        total += alpha[i] * prod
        prod *= 1 - alpha[i]
    return tails


def k_bar(N, cg, delta):
    tails = tail_k(N, cg, 0)
    for K in range(N):
        if tails[K] < delta:
            return K, tails[K]
    return N - 1, mpf(0)


def g_bar(N, cg, V, delta):
    q = {}
    for G in range(V, N + 1):
        q[G] = cg**V * (N - cg) ** (G - V) * binomial(G - 2, V - 2) / mpf(N) ** G
    beta = {G: 1 - (1 - q[G]) ** N for G in q}
    # q_G = beta_G prod_{j>G}(1-beta_j), tail_G = sum_{i=G+1}^{N} q_i
    prod = mpf(1)
    total = mpf(0)
    tails = {}
    for G in range(N, V - 1, -1):
        tails[G] = total
        total += beta[G] * prod
        prod *= 1 - beta[G]
    for G in range(V, N + 1):
        if tails[G] < delta:
            return G, tails[G]
    return N, mpf(0)


def plan(N, n, L, O, delta, t_max, fcg=False):
    c = c_series(N, n, L, O, t_max + L // O + 2)
    rows = []
    for T in range(0, t_max + 1):
        cg = c[T + L // O + 1]
        K, tail = k_bar(N, cg, delta)
        row = (T, float(cg), K, float(tail), T + 2 * L + (2 + K) * O, T + 2 * L + (2 + 2 * K) * O)
        if fcg:
            G, gtail = g_bar(N, cg, 5, delta)
            row += (G, float(gtail), T + 4 * G * O + L - 13 * O)
        rows.append(row)
    return rows


if __name__ == "__main__":
    import sys
    delta = 1 - (1 - mpf("0.5")) ** (mpf(1) / 10**6)
    print("delta(10^6 runs, 50%) =", mp.nstr(delta, 10))
    c = c_series(1024, 1024, 1, 1, 30)
    print("Fig.1 c(t), N=n=1024, L=O=1:", [mp.nstr(c[k], 8) for k in range(0, 31)])
    c3 = c_series(3, 3, 1, 1, 6)
    print("c(t), N=n=3, L=O=1:", [mp.nstr(c3[k], 12) for k in range(0, 7)])
    which = sys.argv[1:] or ["1024", "4096"]
    if "1024" in which:
        print("N=n=1024 L=O=1 delta=6.93e-7: T cg Kbar tail latOCG latCCG [G tail latFCG]")
        for r in plan(1024, 1024, 1, 1, delta, 34, fcg=True):
            print(r)
    if "4096" in which:
        print("N=n=4096 L=2 O=1 delta=6.9315e-7")
        for r in plan(4096, 4096, 2, 1, mpf("6.9315e-7"), 40, fcg=True):
            print(r)
