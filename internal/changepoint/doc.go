// Package changepoint finds the points where a series' level shifts:
// E-divisive means (Matteson & James, "A Nonparametric Approach for
// Multiple Change Point Analysis of Multivariate Data", JASA 109(505),
// 2014), in the variant Hunter and its successor Apache Otava use
// (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
// Performance Regressions", ICPE 2023; otava/analysis.py, split and
// merge): the divisive search of MongoDB's signal-processing-algorithms
// (Daly et al., ICPE 2020; e_divisive.py) with its permutation test
// replaced by Student's two-sample t-test on the two sides of the split.
//
// The variant, exactly:
//
//   - Statistic. For a segment split at τ into X (m values) and Y (n
//     values), q̂(τ) = mn/(m+n) · (2/(mn)·Σ|Xᵢ−Yⱼ| − 2/(m(m−1))·Σ_{i<k}|Xᵢ−Xₖ|
//     − 2/(n(n−1))·Σ_{j<k}|Yⱼ−Yₖ|): Matteson & James's Q̂ with α = 1 and
//     the right end κ fixed at the segment's end, as MongoDB and Otava do
//     (the paper also maximises over κ). Unlike MongoDB's numpy and C
//     calculators, the within-X sum is divided by m(m−1) (they divide it
//     by n(n−1) and the within-Y sum by m(m−1)) and mn/(m+n) is a real
//     division (theirs is an integer one). τ ranges over splits leaving
//     at least MinSize values on each side (MongoDB: any τ).
//   - Split (top down). The segments are bounded by the change points so
//     far; the candidate is the split of largest q̂ over all segments
//     (first on a tie). It is tested with Student's pooled two-sample
//     t-test between its segment's two sides; p ≤ SplitP adds it and the
//     search goes on, otherwise it stops.
//   - Merge (bottom up, Otava's merge). While the weakest change point (the
//     largest p, each tested against its neighbouring change points) has
//     p > MaxP it is removed and its neighbours are tested again.
//   - Otava's defaults: MaxP = 0.001, SplitP = 10·MaxP. Otava passes the
//     population standard deviation (numpy's std, ddof = 0) to scipy's
//     ttest_ind_from_stats; this package uses the sample variance
//     (ddof = 1), which Student's test assumes. Otava also runs the split
//     in overlapping windows of 50 points; this package searches the whole
//     series at once (a lab's history is applies, tens to hundreds).
//
// Each change point carries the means on either side of it, the
// difference with its 95 % confidence interval (Student, pooled variance,
// the same test's degrees of freedom) and that interval relative to the
// mean before. testdata/reference.py is an independent Python
// implementation of the same variant (standard library only); its
// outputs on fixed series are the golden file testdata/reference.json
// that TestReference compares against.
package changepoint
