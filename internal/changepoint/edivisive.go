package changepoint

import "math"

// Qhat is q̂(τ) for every split τ of x (index τ: X = x[:τ], Y = x[τ:]);
// NaN where a side would hold fewer than minSize values (or fewer than
// two, where the statistic is undefined).
func Qhat(x []float64, minSize int) []float64 {
	n := len(x)
	q := make([]float64, n+1)
	lo := max(minSize, 2)
	// cross: Σ|Xi−Yj|, within X, within Y, updated as τ moves right.
	var cross, wx, wy float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			wy += math.Abs(x[i] - x[j])
		}
	}
	for tau := 0; tau <= n; tau++ {
		if tau > 0 {
			// x[tau-1] moves from Y to X.
			v := x[tau-1]
			var toX, toY float64
			for i := 0; i < tau-1; i++ {
				toX += math.Abs(v - x[i])
			}
			for j := tau; j < n; j++ {
				toY += math.Abs(v - x[j])
			}
			wy -= toY // its distances to the rest of Y leave Y,
			// those to X leave the cross sum and join X's
			cross += toY - toX
			wx += toX
		}
		m, k := float64(tau), float64(n-tau)
		if tau < lo || n-tau < lo {
			q[tau] = math.NaN()
			continue
		}
		q[tau] = m * k / (m + k) * (2*cross/(m*k) - 2*wx/(m*(m-1)) - 2*wy/(k*(k-1)))
	}
	return q
}

// bestSplit is the τ of largest q̂ in x (the first on a tie) and its q̂;
// ok is false when x is too short to split.
func bestSplit(x []float64, minSize int) (tau int, q float64, ok bool) {
	for i, v := range Qhat(x, minSize) {
		if !math.IsNaN(v) && (!ok || v > q) {
			tau, q, ok = i, v, true
		}
	}
	return tau, q, ok
}
