#!/usr/bin/python3
"""Reference values for results/reference_test.go, from an implementation
independent of lab's Go code: Student's t quantiles from mpmath at 40
digits (SciPy 1.10's t.ppf is off by up to ~2e-9 relative away from the
97.5 % point, so it is only used as a cross-check), SciPy's t.sf and Welch
test, Fieller's interval found by root-finding (brentq) instead of lab's
closed form, and Holm's adjustment from statsmodels.

Run once (Debian: apt-get install python3-scipy python3-statsmodels; mpmath comes
with SciPy):

    verdicts/testdata/reference/gen.py > verdicts/testdata/reference/reference.json

The Go test reads the JSON only; it does not need Python.
"""
import json
import math
import sys

import mpmath as mp
import numpy as np
import scipy
from scipy import optimize, stats

try:
    import statsmodels
    from statsmodels.stats.multitest import multipletests
    HOLM = "statsmodels %s multipletests" % statsmodels.__version__
except ImportError:  # fall back to the textbook definition
    multipletests = None
    HOLM = "textbook Holm in gen.py"

ALPHA = 0.05
mp.mp.dps = 40


def tppf(p, df):
    """Student's t quantile: the root of the upper tail
    I_{df/(df+t^2)}(df/2, 1/2)/2 = 1-p (p > 0.5), at 40 digits."""
    df, tail = mp.mpf(df), 1 - mp.mpf(p)

    def upper(t):
        return mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2 - tail

    q = mp.findroot(upper, mp.mpf(stats.t.ppf(p, float(df))))
    assert abs(float(q) - stats.t.ppf(p, float(df))) < 1e-6 * float(q)  # SciPy agrees roughly
    return float(q)


def summary(xs):
    xs = np.asarray(xs, dtype=float)
    n = len(xs)
    mean = float(np.mean(xs))
    sd = float(np.std(xs, ddof=1))
    half = tppf(1 - ALPHA / 2, n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "stdev": sd, "ci95_low": mean - half, "ci95_high": mean + half}


def welch(x, y):
    res = stats.ttest_ind(y, x, equal_var=False)
    vx = np.var(x, ddof=1) / len(x)
    vy = np.var(y, ddof=1) / len(y)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    diff = float(np.mean(y) - np.mean(x))
    half = tppf(1 - ALPHA / 2, df) * math.sqrt(vx + vy)
    return {"x": x, "y": y, "t": float(res.statistic), "df": float(df), "p": float(res.pvalue),
            "difflow": diff - half, "diffhigh": diff + half}


def fieller(x, y):
    """Ratio mean(x)/mean(y): the r where (a - r b)^2 / (va + r^2 vb) = t^2,
    found numerically on each side of the estimate."""
    a, b = float(np.mean(x)), float(np.mean(y))
    va = np.var(x, ddof=1) / len(x)
    vb = np.var(y, ddof=1) / len(y)
    r = a / b
    # Welch-Satterthwaite df of va + r^2 vb at the estimate, rounded down, as lab uses
    wy = r * r * vb
    df = (va + wy) ** 2 / (va ** 2 / (len(x) - 1) + wy ** 2 / (len(y) - 1))
    t = tppf(1 - ALPHA / 2, math.floor(df))
    out = {"x": x, "y": y, "estimate": r}
    if b * b / vb <= t * t:  # the denominator is not clear of zero
        out["bounded"] = False
        return out

    def f(q):
        return (a - q * b) ** 2 / (va + q * q * vb) - t * t

    step = abs(r) * 0.01 + 1e-12
    hi = r + step
    while f(hi) < 0:
        hi = r + (hi - r) * 2
    lo = r - step
    while f(lo) < 0:
        lo = r - (r - lo) * 2
    out["bounded"] = True
    out["low"] = optimize.brentq(f, lo, r, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    out["high"] = optimize.brentq(f, r, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    return out


def holm(ps):
    if multipletests is not None:
        return [float(v) for v in multipletests(ps, alpha=ALPHA, method="holm")[1]]
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adj, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adj[i] = running
    return adj


SAMPLES = [
    [4.2, 5.0, 5.8],
    [8.0, 8.6, 9.2],
    [14, 10, 12],
    [2, 4, 4, 4, 5, 5, 7, 9],
    [19.1, 20.3, 20.6, 19.9, 20.4],
    [21.2, 22.0, 21.7, 21.9, 22.3],
    [2.31, 2.47, 2.42],
    [8.5, 8.6, 8.7],
    [0.1, 5, 0.2],
    [9.9, 10.0, 10.1, 10.0, 9.95, 10.05, 10.2, 9.8, 10.0, 10.0],
]

PAIRS = [(4, 5), (0, 1), (2, 3), (6, 7), (7, 6), (1, 9), (3, 2)]

RATIOS = [(7, 6), (6, 7), (1, 0), (9, 1), (5, 4), (0, 8)]

PVALUES = [
    [0.01, 0.04, 0.03, 0.005],
    [0.5, 0.001, 0.2, 0.04, 0.049, 0.8, 1e-8],
    [0.03],
    [0.02, 0.02, 0.02],
]

DFS = [1, 2, 3, 4, 5, 7, 9, 10, 19, 29, 30, 60, 120, 1000, 2.5, 7.092552, 3.3]
PROBS = [0.975, 0.95, 0.995, 0.9]


def main():
    ref = {
        "generator": "verdicts/testdata/reference/gen.py (scipy %s, numpy %s, mpmath %s, Holm: %s)" % (
            scipy.__version__, np.__version__, mp.__version__, HOLM),
        "t_quantiles": [{"df": df, "p": p, "q": tppf(p, df)} for df in DFS for p in PROBS],
        "t_two_sided_p": [{"df": df, "t": t, "p": float(2 * stats.t.sf(t, df))}
                          for df in [2, 5, 7.092552, 30] for t in [0.5, 2.0, 5.457528, 12.0]],
        "summaries": [dict(summary(xs), xs=xs) for xs in SAMPLES],
        "welch": [welch(SAMPLES[i], SAMPLES[j]) for i, j in PAIRS],
        "fieller": [fieller(SAMPLES[i], SAMPLES[j]) for i, j in RATIOS],
        "holm": [{"p": ps, "adjusted": holm(ps)} for ps in PVALUES],
    }
    json.dump(ref, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
