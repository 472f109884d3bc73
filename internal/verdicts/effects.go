package verdicts

import (
	"math"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/results"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// FactorEffects is what `lab effects` estimates for one experiment and
// pair: the matrix factors' main effects and two-way interactions on each
// metric, from a linear model fitted to the runs by ordinary least
// squares with effect (sum-to-zero) coding.
//
// The model of a metric y of run i is
//
//	y_i = μ + Σ_f α_f[level_f(i)] + Σ_{f<g} (αβ)_fg[level_f(i), level_g(i)] + ε_i
//
// with every effect summing to zero over each of its factors' levels, so
// μ is the mean of the cell means and α_f[l] is how far level l of f
// moves the metric from it. Interactions of three or more factors are not
// in the model: they are taken as zero (their variation is left in the
// residual). Runs are weighted alike, so an unbalanced design (repeats
// lost, failed or disturbed in some cells) still estimates every effect,
// with confidence intervals from the residual variance on n − rank
// degrees of freedom. A cell with no run at all can leave an effect
// without an estimate: an effect is reported estimable only when it is a
// function of the cells that have runs (its vector lies in the row space
// of the design matrix).
type FactorEffects struct {
	Experiment string `json:"experiment"`
	Pair       string `json:"pair"`
	// Factors are the matrix factors with two or more levels, in matrix
	// order; a factor with one value has no effect to estimate.
	Factors []Factor `json:"factors"`
	// Cells counts the matrix cells with at least one run; Runs the runs
	// used; Failed and Disturbed the runs left out (errors; CPU steal).
	Cells     int `json:"cells"`
	Runs      int `json:"runs"`
	Failed    int `json:"failed,omitempty"`
	Disturbed int `json:"disturbed,omitempty"`
	// Metrics are the fitted models, one per metric, in catalogue order.
	Metrics []MetricEffects `json:"metrics"`
}

// Factor is a matrix factor and its levels in matrix order.
type Factor struct {
	Name   string   `json:"name"`
	Levels []string `json:"levels"`
}

// MetricEffects is the model fitted to one metric, in the record's units.
type MetricEffects struct {
	Metric string `json:"metric"`
	// N is the number of runs that measured the metric; Rank the rank of
	// the design matrix; DF = N − Rank the residual degrees of freedom.
	N    int `json:"n"`
	Rank int `json:"rank"`
	DF   int `json:"df"`
	// ResidualSD is the residual standard deviation (√(RSS/DF); 0 when
	// DF = 0).
	ResidualSD float64 `json:"residual_sd"`
	// Mean is μ, the mean of the cell means.
	Mean Estimate `json:"mean"`
	// Terms are the main effects, in factor order, then the two-way
	// interactions.
	Terms []Term `json:"terms"`
}

// Term is a main effect (one factor) or a two-way interaction (two).
type Term struct {
	Factors []string `json:"factors"`
	// Levels holds one estimate per level (main effect) or per pair of
	// levels (interaction): the deviation it adds to μ. They sum to zero
	// over each factor.
	Levels []Estimate `json:"levels"`
	// Contrast is set when every factor of the term has two levels: for a
	// main effect the second level minus the first ("how much LRO adds");
	// for an interaction the difference of differences: how much more
	// the second factor's contrast is at the first factor's second level
	// than at its first (0 when the factors do not interact).
	Contrast *Estimate `json:"contrast,omitempty"`
	// F and P are the Wald F test that all the term's effects are zero,
	// on DFTerm and the model's DF degrees of freedom: the summary of a
	// factor with more than two levels. Tested is false when the test
	// cannot be made (an effect is not estimable, DF = 0 or no residual
	// variance); F and P are then 0.
	DFTerm int     `json:"df_term"`
	F      float64 `json:"f"`
	P      float64 `json:"p"`
	Tested bool    `json:"tested"`
}

// Estimate is one linear function of the model's coefficients.
type Estimate struct {
	// Levels names the level of each of the term's factors ("9000",
	// "true"); for a contrast, "9000 − 1500".
	Levels []string `json:"levels,omitempty"`
	// Estimable is false when the runs cannot tell the value (a cell it
	// depends on has no run); every other field is then 0.
	Estimable bool    `json:"estimable"`
	Value     float64 `json:"value"`
	SE        float64 `json:"se"`
	CI95Low   float64 `json:"ci95_low"`
	CI95High  float64 `json:"ci95_high"`
	// Known says the interval could be computed (DF ≥ 1).
	Known bool `json:"ci_known"`
}

// Effects fits the model of every metric (or of the metric key alone,
// when key is not "") for each experiment and pair of records, in
// first-seen order. Warm-ups, failed and disturbed runs are left out.
// Metrics no run measured, and hidden metrics unless asked by key, are
// skipped.
func Effects(records []results.Record, key string) []FactorEffects {
	type ep struct{ exp, pair string }
	var order []ep
	byEP := map[ep][]results.Record{}
	for _, r := range records {
		if r.Warmup {
			continue
		}
		k := ep{r.Experiment, r.Pair}
		if _, ok := byEP[k]; !ok {
			order = append(order, k)
		}
		byEP[k] = append(byEP[k], r)
	}
	var out []FactorEffects
	for _, k := range order {
		out = append(out, pairEffects(byEP[k], key))
	}
	return out
}

// pairEffects fits the models of one experiment and pair.
func pairEffects(recs []results.Record, key string) FactorEffects {
	fe := FactorEffects{Experiment: recs[0].Experiment, Pair: recs[0].Pair, Factors: factors(recs)}
	var used []results.Record
	cells := map[string]bool{}
	for _, r := range recs {
		switch {
		case r.Error != "":
			fe.Failed++
		case r.Disturbed != "":
			fe.Disturbed++
		default:
			used = append(used, r)
			cells[r.CellKey] = true
		}
	}
	fe.Runs, fe.Cells = len(used), len(cells)
	d := newDesign(fe.Factors)
	for _, m := range results.Metrics {
		if key != "" && m.Key != key || key == "" && m.Hidden {
			continue
		}
		var rows [][]int
		var ys []float64
		for _, r := range used {
			if v, ok := m.Value(r); ok && !math.IsInf(v, 0) && !math.IsNaN(v) {
				rows, ys = append(rows, d.levelsOf(r)), append(ys, v)
			}
		}
		if len(ys) == 0 {
			continue
		}
		me := d.fit(rows, ys)
		me.Metric = m.Key
		fe.Metrics = append(fe.Metrics, me)
	}
	return fe
}

// factors are the matrix factors of recs with two or more levels, levels
// in matrix order (the order of CellIndex).
func factors(recs []results.Record) []Factor {
	sorted := slices.Clone(recs)
	slices.SortStableFunc(sorted, func(a, b results.Record) int { return a.CellIndex - b.CellIndex })
	var fs []Factor
	index := map[string]int{}
	for _, r := range sorted {
		for _, c := range r.Cell {
			i, ok := index[c.Name]
			if !ok {
				i = len(fs)
				index[c.Name] = i
				fs = append(fs, Factor{Name: c.Name})
			}
			if !slices.Contains(fs[i].Levels, c.Value) {
				fs[i].Levels = append(fs[i].Levels, c.Value)
			}
		}
	}
	return slices.DeleteFunc(fs, func(f Factor) bool { return len(f.Levels) < 2 })
}

// design lays out the model's columns: the intercept, then each term's
// (L_f − 1) or (L_f − 1)(L_g − 1) columns.
type design struct {
	factors []Factor
	terms   [][]int // factor indexes of each term
	offset  []int   // first column of each term
	cols    int
}

func newDesign(fs []Factor) design {
	d := design{factors: fs, cols: 1}
	for i := range fs {
		d.terms = append(d.terms, []int{i})
	}
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			d.terms = append(d.terms, []int{i, j})
		}
	}
	for _, t := range d.terms {
		d.offset = append(d.offset, d.cols)
		d.cols += d.termCols(t)
	}
	return d
}

func (d design) termCols(t []int) int {
	n := 1
	for _, f := range t {
		n *= len(d.factors[f].Levels) - 1
	}
	return n
}

// levelsOf is the level index of each factor in r's cell.
func (d design) levelsOf(r results.Record) []int {
	out := make([]int, len(d.factors))
	for i, f := range d.factors {
		for _, c := range r.Cell {
			if c.Name == f.Name {
				out[i] = slices.Index(f.Levels, c.Value)
			}
		}
	}
	return out
}

// coding is the sum-to-zero coding of level l of a factor with n levels:
// the unit vector e_l, and −1 everywhere for the last level.
func coding(l, n int) []float64 {
	v := make([]float64, n-1)
	for i := range v {
		switch {
		case l == n-1:
			v[i] = -1
		case i == l:
			v[i] = 1
		}
	}
	return v
}

// termVector is the term's columns for the levels of its factors: the
// Kronecker product of their codings.
func (d design) termVector(t, levels []int) []float64 {
	v := []float64{1}
	for k, f := range t {
		c := coding(levels[k], len(d.factors[f].Levels))
		next := make([]float64, 0, len(v)*len(c))
		for _, a := range v {
			for _, b := range c {
				next = append(next, a*b)
			}
		}
		v = next
	}
	return v
}

// row is the design-matrix row of a run with the factor levels.
func (d design) row(levels []int) []float64 {
	x := make([]float64, d.cols)
	x[0] = 1
	for ti, t := range d.terms {
		sub := make([]int, len(t))
		for k, f := range t {
			sub[k] = levels[f]
		}
		copy(x[d.offset[ti]:], d.termVector(t, sub))
	}
	return x
}

// fitted is a least-squares fit: coefficients, their covariance and the
// row space of the design, through the singular value decomposition
// (X = U Σ Vᵀ; a rank-deficient X gets the pseudo-inverse).
type fitted struct {
	beta   *mat.VecDense
	cov    *mat.Dense // σ² (XᵀX)⁺
	unit   *mat.Dense // (XᵀX)⁺
	basis  *mat.Dense // the first rank columns of V: the row space of X
	rank   int
	df     int
	sigma2 float64
	tcrit  float64
	// scale is what y was divided by (estimates are multiplied back).
	scale float64
}

func (d design) fit(rows [][]int, ys []float64) MetricEffects {
	n := len(ys)
	x := mat.NewDense(n, d.cols, nil)
	for i, lv := range rows {
		x.SetRow(i, d.row(lv))
	}
	// The fit runs on y / 2^e, 2^e ≥ max |y|: exact (a power of two), and
	// no square of a huge value overflows the residual variance.
	top := 0.0
	for _, v := range ys {
		top = math.Max(top, math.Abs(v))
	}
	scale := 1.0
	if top > 0 {
		_, e := math.Frexp(top)
		scale = math.Ldexp(1, e)
	}
	y := mat.NewVecDense(n, nil)
	for i, v := range ys {
		y.SetVec(i, v/scale)
	}
	f := solve(x, y)
	f.scale = scale
	me := MetricEffects{N: n, Rank: f.rank, DF: f.df, ResidualSD: math.Sqrt(f.sigma2) * scale}
	if !finite(me.ResidualSD) {
		me.ResidualSD = 0
	}
	intercept := make([]float64, d.cols)
	intercept[0] = 1
	me.Mean = f.estimate(intercept)
	for ti := range d.terms {
		me.Terms = append(me.Terms, d.term(f, ti))
	}
	return me
}

// solve fits y = Xβ by least squares.
func solve(x *mat.Dense, y *mat.VecDense) fitted {
	n, p := x.Dims()
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		return fitted{beta: mat.NewVecDense(p, nil), cov: mat.NewDense(p, p, nil), unit: mat.NewDense(p, p, nil),
			basis: mat.NewDense(p, 1, nil), df: 0}
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	tol := float64(max(n, p)) * s[0] * 1e-12
	rank := 0
	for _, sv := range s {
		if sv > tol {
			rank++
		}
	}
	f := fitted{rank: rank, df: n - rank}
	if rank == 0 {
		f.beta, f.cov, f.unit, f.basis = mat.NewVecDense(p, nil), mat.NewDense(p, p, nil), mat.NewDense(p, p, nil), mat.NewDense(p, 1, nil)
		return f
	}
	vr := v.Slice(0, p, 0, rank)
	ur := u.Slice(0, n, 0, rank)
	// β = V_r Σ_r⁻¹ U_rᵀ y; (XᵀX)⁺ = V_r Σ_r⁻² V_rᵀ.
	uy := mat.NewVecDense(rank, nil)
	uy.MulVec(ur.T(), y)
	scaled := mat.DenseCopyOf(vr)
	for j := 0; j < rank; j++ {
		uy.SetVec(j, uy.AtVec(j)/s[j])
		col := scaled.ColView(j).(*mat.VecDense)
		col.ScaleVec(1/s[j], col)
	}
	f.beta = mat.NewVecDense(p, nil)
	f.beta.MulVec(vr, uy)
	f.unit = mat.NewDense(p, p, nil)
	f.unit.Mul(scaled, scaled.T())
	var res mat.VecDense
	res.MulVec(x, f.beta)
	res.SubVec(y, &res)
	if f.df > 0 {
		f.sigma2 = mat.Dot(&res, &res) / float64(f.df)
		f.tcrit = results.TCritical95(f.df)
	}
	f.cov = mat.NewDense(p, p, nil)
	f.cov.Scale(f.sigma2, f.unit)
	f.basis = mat.DenseCopyOf(vr)
	return f
}

// estimable reports whether cᵀβ is estimable: c lies in the row space
// of X (its projection on V_r is c itself).
func (f fitted) estimable(c []float64) bool {
	if f.rank == 0 {
		return false
	}
	cv := mat.NewVecDense(len(c), c)
	var coef, proj mat.VecDense
	coef.MulVec(f.basis.T(), cv)
	proj.MulVec(f.basis, &coef)
	proj.SubVec(cv, &proj)
	return mat.Norm(&proj, 2) <= 1e-8*math.Max(1, mat.Norm(cv, 2))
}

// estimate is cᵀβ with its standard error and 95 % interval.
func (f fitted) estimate(c []float64) Estimate {
	if !f.estimable(c) {
		return Estimate{}
	}
	cv := mat.NewVecDense(len(c), c)
	v := mat.Dot(cv, f.beta)
	var vc mat.VecDense
	vc.MulVec(f.cov, cv)
	se := math.Sqrt(math.Max(0, mat.Dot(cv, &vc)))
	e := Estimate{Estimable: true, Value: v * f.scale, SE: se * f.scale}
	e.CI95Low, e.CI95High = e.Value, e.Value
	if f.df > 0 {
		e.CI95Low, e.CI95High = (v-f.tcrit*se)*f.scale, (v+f.tcrit*se)*f.scale
		e.Known = true
	}
	// JSON always encodes: a figure past float64's range is no figure.
	switch {
	case !finite(e.Value) || !finite(e.SE):
		return Estimate{}
	case !finite(e.CI95Low) || !finite(e.CI95High):
		e.CI95Low, e.CI95High, e.Known = e.Value, e.Value, false
	}
	return e
}

func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// term estimates term ti: each level's (or level pair's) effect, the
// two-level contrast and the Wald F test.
func (d design) term(f fitted, ti int) Term {
	t := d.terms[ti]
	tm := Term{DFTerm: d.termCols(t)}
	for _, fi := range t {
		tm.Factors = append(tm.Factors, d.factors[fi].Name)
	}
	full := func(tv []float64) []float64 {
		c := make([]float64, d.cols)
		copy(c[d.offset[ti]:], tv)
		return c
	}
	all := true
	for _, lv := range d.levelCombos(t) {
		e := f.estimate(full(d.termVector(t, lv)))
		e.Levels = d.levelNames(t, lv)
		all = all && e.Estimable
		tm.Levels = append(tm.Levels, e)
	}
	if c, names, ok := d.contrast(t); ok {
		e := f.estimate(full(c))
		e.Levels = names
		tm.Contrast = &e
	}
	if all && f.df > 0 && f.sigma2 > 0 {
		tm.F, tm.DFTerm, tm.Tested = f.wald(d.offset[ti], tm.DFTerm)
		if tm.Tested {
			tm.P = fSurvival(tm.F, float64(tm.DFTerm), float64(f.df))
		}
	}
	return tm
}

// levelCombos lists every combination of the term's factors' levels, the
// last factor's level varying fastest.
func (d design) levelCombos(t []int) [][]int {
	combos := [][]int{{}}
	for _, f := range t {
		var next [][]int
		for _, c := range combos {
			for l := range d.factors[f].Levels {
				next = append(next, append(slices.Clone(c), l))
			}
		}
		combos = next
	}
	return combos
}

func (d design) levelNames(t, levels []int) []string {
	names := make([]string, len(t))
	for k, f := range t {
		names[k] = d.factors[f].Levels[levels[k]]
	}
	return names
}

// contrast is, for a term whose factors all have two levels, the sum over
// its level combinations of sign × termVector, the sign being the product
// of −1 for each factor at its first level and +1 at its second: the
// second-minus-first contrast of a main effect, the difference of
// differences of an interaction.
func (d design) contrast(t []int) ([]float64, []string, bool) {
	var names []string
	for _, f := range t {
		lv := d.factors[f].Levels
		if len(lv) != 2 {
			return nil, nil, false
		}
		names = append(names, lv[1]+" − "+lv[0])
	}
	c := make([]float64, d.termCols(t))
	for _, lv := range d.levelCombos(t) {
		sign := 1.0
		for _, l := range lv {
			if l == 0 {
				sign = -sign
			}
		}
		for i, v := range d.termVector(t, lv) {
			c[i] += sign * v
		}
	}
	return c, names, true
}

// wald is the F statistic βᵀ V⁺ β / (q σ²) of the q columns from off,
// V = (XᵀX)⁺ restricted to them, q the rank of V.
func (f fitted) wald(off, q int) (float64, int, bool) {
	b := mat.NewVecDense(q, nil)
	b.CopyVec(f.beta.SliceVec(off, off+q))
	v := mat.DenseCopyOf(f.unit.Slice(off, off+q, off, off+q))
	var svd mat.SVD
	if !svd.Factorize(v, mat.SVDThin) {
		return 0, q, false
	}
	s := svd.Values(nil)
	var u mat.Dense
	svd.UTo(&u)
	quad, rank := 0.0, 0
	for j, sv := range s {
		if sv <= float64(q)*s[0]*1e-12 {
			continue
		}
		rank++
		proj := mat.Dot(u.ColView(j), b)
		quad += proj * proj / sv
	}
	if rank == 0 {
		return 0, q, false
	}
	F := quad / (float64(rank) * f.sigma2)
	return F, rank, !math.IsInf(F, 0) && !math.IsNaN(F)
}

// fSurvival is P(F > x) for F(d1, d2): I_{d2/(d2+d1 x)}(d2/2, d1/2),
// accurate in the tail (1 − CDF is not).
func fSurvival(x, d1, d2 float64) float64 {
	if x <= 0 {
		return 1
	}
	return mathext.RegIncBeta(d2/2, d1/2, d2/(d2+d1*x))
}

// TermName is the term's factors joined by " × " ("mtu × gro").
func (t Term) TermName() string { return strings.Join(t.Factors, " × ") }

// Shown are the term's estimates a table or a plot shows: the contrast
// when every factor of the term has two levels, else each level's (or
// pair of levels') deviation from the mean.
func (t Term) Shown() []Estimate {
	if t.Contrast != nil {
		return []Estimate{*t.Contrast}
	}
	return t.Levels
}

// Label names the estimate's levels: "9000 − 1500", "(9000 − 1500) ×
// (true − false)" for a contrast, "stateful" or "1500, stateful" for a
// level's deviation.
func (e Estimate) Label() string {
	if len(e.Levels) > 1 && strings.Contains(e.Levels[0], " − ") {
		return "(" + strings.Join(e.Levels, ") × (") + ")"
	}
	return strings.Join(e.Levels, ", ")
}
