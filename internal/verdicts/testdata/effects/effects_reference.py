#!/usr/bin/python3
"""Reference for `lab effects` (internal/verdicts/effects.go).

Run by hand, once, from the repository root; CI never runs it (the Go test
TestEffectsReference reads only the two JSON files it writes):

    apt-get install -y python3-numpy python3-scipy
    /usr/bin/python3 internal/verdicts/testdata/effects/effects_reference.py

It reads recorded runs of two published bundles (testdata/bundles/quickstart:
mtu x gro x streams, 2x2x2, five repeats; testdata/bundles/firewall-jumbo:
mtu x firewall, 2x3), writes them without their raw output to records.json
(the Go test's input) and fits, with numpy's least squares and scipy's F
distribution, the model lab documents: intercept, main effects and two-way
interactions in sum-to-zero coding. It writes the estimates to
reference.json. Datasets: the balanced quickstart run, the same with runs
dropped (unbalanced), with one cell dropped whole (incomplete: 7 cells for 7
coefficients), and the firewall run (a factor of three levels).
"""
import glob
import json
import os

import numpy as np
import scipy
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
BUNDLES = [("quickstart", "mtu-gro"), ("firewall-jumbo", "firewall")]
METRICS = {
    "throughput_bps": lambda r: r["metrics"]["throughput_bps"],
    "retransmits": lambda r: float(r["metrics"].get("retransmits", 0)),
    "server_cpu_pct": lambda r: r["metrics"]["server_cpu"]["busy_pct"],
}
DATASETS = [
    {"name": "balanced", "experiment": "mtu-gro", "drop": []},
    {"name": "unbalanced", "experiment": "mtu-gro", "drop": [
        {"cell_key": "mtu=9000,gro=true,streams=2", "repeat": 4},
        {"cell_key": "mtu=9000,gro=true,streams=2", "repeat": 5},
        {"cell_key": "mtu=1500,gro=false,streams=1", "repeat": 1},
    ]},
    {"name": "incomplete", "experiment": "mtu-gro", "drop": [
        {"cell_key": "mtu=9000,gro=true,streams=2", "repeat": rep} for rep in range(1, 6)
    ]},
    {"name": "three-levels", "experiment": "firewall", "drop": []},
]


def load():
    recs = []
    for bundle, exp in BUNDLES:
        pattern = os.path.join(ROOT, "testdata", "bundles", bundle, "records", "*", exp, "*", "*", "*.json")
        for path in sorted(glob.glob(pattern)):
            r = json.load(open(path))
            m = r["metrics"]
            keep = {k: m[k] for k in ("throughput_bps", "sender_bps", "retransmits", "server_cpu", "client_cpu",
                                      "tool_version") if k in m}
            out = {k: r[k] for k in ("schema", "run_id", "lab", "experiment", "pair", "cell", "cell_key",
                                     "cell_index", "repeat") if k in r}
            for k in ("warmup", "error", "disturbed"):
                if r.get(k):
                    out[k] = r[k]
            out["metrics"] = keep
            recs.append(out)
    recs.sort(key=lambda r: (r["experiment"], r["cell_index"], r.get("warmup", False) is False, r["repeat"]))
    return recs


def coding(level, n):
    v = np.zeros(n - 1)
    if level == n - 1:
        v[:] = -1
    else:
        v[level] = 1
    return v


def fit(recs, metric):
    rows = [r for r in recs if not r.get("warmup") and not r.get("error") and not r.get("disturbed")]
    names = [c["name"] for c in rows[0]["cell"]]
    levels = {}
    for r in sorted(recs, key=lambda r: r["cell_index"]):
        for c in r["cell"]:
            levels.setdefault(c["name"], [])
            if c["value"] not in levels[c["name"]]:
                levels[c["name"]].append(c["value"])
    factors = [f for f in names if len(levels[f]) >= 2]
    terms = [[f] for f in factors] + [[a, b] for i, a in enumerate(factors) for b in factors[i + 1:]]

    def term_vec(term, lv):
        v = np.ones(1)
        for f, l in zip(term, lv):
            v = np.kron(v, coding(l, len(levels[f])))
        return v

    def row(r):
        cell = {c["name"]: levels[c["name"]].index(c["value"]) for c in r["cell"]}
        return np.concatenate([[1.0]] + [term_vec(t, [cell[f] for f in t]) for t in terms])

    X = np.array([row(r) for r in rows])
    y = np.array([METRICS[metric](r) for r in rows])
    n, p = X.shape
    beta, rss, rank, _ = np.linalg.lstsq(X, y, rcond=None)
    assert rank == p, "reference datasets are full rank"
    df = n - p
    resid = y - X @ beta
    s2 = float(resid @ resid) / df
    unit = np.linalg.inv(X.T @ X)
    cov = s2 * unit
    t = stats.t.ppf(0.975, df)
    offsets, off = [], 1
    for term in terms:
        offsets.append(off)
        off += int(np.prod([len(levels[f]) - 1 for f in term]))

    def est(c, lv=None):
        v = float(c @ beta)
        se = float(np.sqrt(c @ cov @ c))
        e = {"value": v, "se": se, "ci95_low": v - t * se, "ci95_high": v + t * se}
        if lv is not None:
            e["levels"] = lv
        return e

    out_terms = []
    for term, off in zip(terms, offsets):
        q = int(np.prod([len(levels[f]) - 1 for f in term]))

        def full(tv):
            c = np.zeros(p)
            c[off:off + q] = tv
            return c

        combos = [[]]
        for f in term:
            combos = [c + [l] for c in combos for l in range(len(levels[f]))]
        lv_est = [est(full(term_vec(term, lv)), [levels[f][l] for f, l in zip(term, lv)]) for lv in combos]
        entry = {"factors": term, "levels": lv_est}
        if all(len(levels[f]) == 2 for f in term):
            c = np.zeros(q)
            for lv in combos:
                c += np.prod([1 if l == 1 else -1 for l in lv]) * term_vec(term, lv)
            entry["contrast"] = est(full(c), [levels[f][1] + " − " + levels[f][0] for f in term])
        b = beta[off:off + q]
        F = float(b @ np.linalg.inv(unit[off:off + q, off:off + q]) @ b) / (q * s2)
        entry.update({"df_term": q, "f": F, "p": float(stats.f.sf(F, q, df))})
        out_terms.append(entry)
    mean = np.zeros(p)
    mean[0] = 1
    return {"metric": metric, "n": n, "rank": int(rank), "df": df, "residual_sd": float(np.sqrt(s2)),
            "mean": est(mean), "terms": out_terms}


def main():
    recs = load()
    with open(os.path.join(HERE, "records.json"), "w") as f:
        json.dump(recs, f, indent=1, ensure_ascii=False)
        f.write("\n")
    out = {"generator": "effects_reference.py, numpy %s lstsq, scipy %s" % (np.__version__, scipy.__version__),
           "datasets": []}
    for ds in DATASETS:
        drop = {(d["cell_key"], d["repeat"]) for d in ds["drop"]}
        sel = [r for r in recs if r["experiment"] == ds["experiment"] and
               (r["cell_key"], r["repeat"]) not in drop]
        out["datasets"].append(dict(ds, metrics=[fit(sel, m) for m in METRICS]))
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
