#!/usr/bin/env python3
"""Independent reference of internal/changepoint's E-divisive variant.

Standard library only (no numpy, no scipy): q-hat by direct sums, the
t-test's p-value from the regularised incomplete beta function by its
continued fraction (Lentz), the t quantile by bisection. It writes
reference.json: fixed series, seeded here, and what this implementation
finds in them; TestReference (reference_test.go) checks the Go package
against it.

Regenerate: python3 internal/changepoint/testdata/reference.py \
    > internal/changepoint/testdata/reference.json
"""
import json
import math
import random

MAX_P = 0.001
SPLIT_P = 0.01
MIN_SIZE = 3


def qhat(x, tau):
    """Matteson & James's Q-hat, alpha = 1, kappa = len(x)."""
    X, Y = x[:tau], x[tau:]
    m, n = len(X), len(Y)
    cross = sum(abs(a - b) for a in X for b in Y)
    wx = sum(abs(X[i] - X[k]) for i in range(m) for k in range(i + 1, m))
    wy = sum(abs(Y[i] - Y[k]) for i in range(n) for k in range(i + 1, n))
    e = 2.0 * cross / (m * n) - 2.0 * wx / (m * (m - 1)) - 2.0 * wy / (n * (n - 1))
    return m * n / (m + n) * e


def best_split(x):
    lo = max(MIN_SIZE, 2)
    best = None
    for tau in range(lo, len(x) - lo + 1):
        q = qhat(x, tau)
        if best is None or q > best[1]:
            best = (tau, q)
    return best


def betacf(a, b, x):
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def reg_inc_beta(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def t_two_sided_p(t, df):
    return reg_inc_beta(df / 2.0, 0.5, df / (df + t * t))


def t_quantile_975(df):
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided_p(mid, df) > 0.05:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_var(x):
    mu = sum(x) / len(x)
    if len(x) < 2:
        return mu, 0.0
    return mu, sum((v - mu) ** 2 for v in x) / (len(x) - 1)


def compare(before, after):
    m1, v1 = mean_var(before)
    m2, v2 = mean_var(after)
    s = {"index_stats": True, "mean_before": m1, "mean_after": m2, "diff": m2 - m1, "p": 1.0,
         "diff_low": m2 - m1, "diff_high": m2 - m1}
    df = len(before) + len(after) - 2
    if df < 1:
        return s
    pooled = ((len(before) - 1) * v1 + (len(after) - 1) * v2) / df
    se = math.sqrt(pooled * (1.0 / len(before) + 1.0 / len(after)))
    if se == 0:
        s["p"] = 0.0 if s["diff"] != 0 else 1.0
        return s
    t = s["diff"] / se
    s["p"] = t_two_sided_p(t, df)
    half = t_quantile_975(df) * se
    s["diff_low"], s["diff_high"] = s["diff"] - half, s["diff"] + half
    return s


def stats_at(x, index, cps):
    bounds = [0] + sorted(cps) + [len(x)]
    start = max(b for b in bounds if b < index)
    end = min(b for b in bounds if b > index)
    return compare(x[start:index], x[index:end])


def detect(x):
    cps = {}  # index -> qhat
    while True:
        bounds = [0] + sorted(cps) + [len(x)]
        best = None
        for a, b in zip(bounds, bounds[1:]):
            s = best_split(x[a:b])
            if s is not None and (best is None or s[1] > best[1]):
                best = (a + s[0], s[1])
        if best is None or stats_at(x, best[0], list(cps))["p"] > SPLIT_P:
            break
        cps[best[0]] = best[1]
    order = sorted(cps)
    while order:
        ps = [stats_at(x, i, order)["p"] for i in order]
        w = max(range(len(order)), key=lambda k: (ps[k], -k))
        if ps[w] <= MAX_P:
            break
        del order[w]
    return [dict(index=i, qhat=cps[i], **stats_at(x, i, order)) for i in order]


def series(rng, levels, noise):
    """levels: [(count, mean)]; noise: the relative standard deviation."""
    return [round(rng.gauss(mu, mu * noise), 6) for count, mu in levels for _ in range(count)]


def cases():
    rng = random.Random(20261205)
    yield "aa-flat-10pct", series(rng, [(30, 100)], 0.10)
    yield "aa-flat-25pct", series(rng, [(40, 9.4e9)], 0.25)
    yield "step-down-20pct", series(rng, [(15, 100), (10, 80)], 0.10)
    yield "step-up-10pct-quiet", series(rng, [(12, 50), (12, 55)], 0.03)
    yield "two-steps", series(rng, [(10, 100), (10, 130), (10, 90)], 0.05)
    yield "late-step", series(rng, [(20, 200), (3, 150)], 0.05)
    yield "short", series(rng, [(5, 10)], 0.1)
    yield "outlier", series(rng, [(10, 100)], 0.02) + [160.0] + series(rng, [(10, 100)], 0.02)


def main():
    out = []
    for name, x in cases():
        qs = [qhat(x, t) if MIN_SIZE <= t <= len(x) - MIN_SIZE else None for t in range(len(x) + 1)]
        out.append({"name": name, "series": x, "qhat": qs, "change_points": detect(x)})
    for c in out:
        for cp in c["change_points"]:
            cp.pop("index_stats")
    print(json.dumps({"max_p": MAX_P, "split_p": SPLIT_P, "min_size": MIN_SIZE, "cases": out}, indent=1))


if __name__ == "__main__":
    main()
