package verdicts

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// reference is testdata/reference/reference.json, written once by
// testdata/reference/gen.py from SciPy (t distribution, Welch's test),
// a root-finding Fieller interval and statsmodels' Holm adjustment: an
// implementation independent of this package's. The test needs only the
// JSON.
type reference struct {
	Generator  string `json:"generator"`
	TQuantiles []struct {
		DF, P, Q float64
	} `json:"t_quantiles"`
	TTwoSidedP []struct {
		DF, T, P float64
	} `json:"t_two_sided_p"`
	Summaries []struct {
		Xs       []float64 `json:"xs"`
		N        int       `json:"n"`
		Mean     float64   `json:"mean"`
		Stdev    float64   `json:"stdev"`
		CI95Low  float64   `json:"ci95_low"`
		CI95High float64   `json:"ci95_high"`
	} `json:"summaries"`
	Welch []struct {
		X, Y              []float64
		T, DF, P          float64
		DiffLow, DiffHigh float64
	} `json:"welch"`
	Fieller []struct {
		X, Y      []float64
		Estimate  float64
		Bounded   bool
		Low, High float64
	} `json:"fieller"`
	Holm []struct {
		P        []float64 `json:"p"`
		Adjusted []float64 `json:"adjusted"`
	} `json:"holm"`
}

// closeTo reports whether got is within 1e-9 of want, relative to
// max(1, |want|).
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

func loadReference(t *testing.T) reference {
	t.Helper()
	data, err := os.ReadFile("testdata/reference/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestReferenceTDistribution(t *testing.T) {
	ref := loadReference(t)
	if len(ref.TQuantiles) == 0 || len(ref.TTwoSidedP) == 0 {
		t.Fatal("no reference values")
	}
	for _, r := range ref.TQuantiles {
		if got := results.TCritical(2*(1-r.P), r.DF); !closeTo(got, r.Q) {
			t.Errorf("t quantile p=%v df=%v: %.15g, scipy %.15g", r.P, r.DF, got, r.Q)
		}
	}
	for _, r := range ref.TTwoSidedP {
		if got := tTwoSidedP(r.T, r.DF); !closeTo(got, r.P) {
			t.Errorf("P(|T| > %v), df=%v: %.15g, scipy %.15g", r.T, r.DF, got, r.P)
		}
	}
}

func TestReferenceSummaries(t *testing.T) {
	for _, r := range loadReference(t).Summaries {
		s := results.Summarize(r.Xs)
		if s.N != r.N || !closeTo(s.Mean, r.Mean) || !closeTo(s.Stdev, r.Stdev) ||
			!closeTo(s.CI95Low, r.CI95Low) || !closeTo(s.CI95High, r.CI95High) {
			t.Errorf("%v: %+v, scipy %+v", r.Xs, s, r)
		}
	}
}

func TestReferenceWelch(t *testing.T) {
	ref := loadReference(t)
	if len(ref.Welch) == 0 {
		t.Fatal("no reference values")
	}
	for _, r := range ref.Welch {
		x, y := results.Summarize(r.X), results.Summarize(r.Y)
		tt, df, p := WelchT(x, y)
		if !closeTo(tt, r.T) || !closeTo(df, r.DF) || !closeTo(p, r.P) {
			t.Errorf("%v vs %v: t=%.15g df=%.15g p=%.15g, scipy %+v", r.X, r.Y, tt, df, p, r)
		}
		d := compareCell(results.CellGroup{ThroughputBps: x}, results.CellGroup{ThroughputBps: y}, results.MetricThroughput)
		if !closeTo(d.DiffLow, r.DiffLow) || !closeTo(d.DiffHigh, r.DiffHigh) {
			t.Errorf("%v vs %v: difference CI [%.15g, %.15g], scipy [%v, %v]", r.X, r.Y, d.DiffLow, d.DiffHigh, r.DiffLow, r.DiffHigh)
		}
	}
}

func TestReferenceFieller(t *testing.T) {
	ref := loadReference(t)
	bounded := 0
	for _, r := range ref.Fieller {
		lo, hi, ok := Fieller(results.Summarize(r.X), results.Summarize(r.Y), 0.05)
		if ok != r.Bounded {
			t.Errorf("%v / %v: bounded %v, reference %v", r.X, r.Y, ok, r.Bounded)
			continue
		}
		if ok {
			bounded++
			if !closeTo(lo, r.Low) || !closeTo(hi, r.High) {
				t.Errorf("%v / %v: [%.15g, %.15g], reference [%.15g, %.15g]", r.X, r.Y, lo, hi, r.Low, r.High)
			}
		}
	}
	if bounded == 0 || bounded == len(ref.Fieller) {
		t.Errorf("%d of %d reference intervals bounded: want both kinds", bounded, len(ref.Fieller))
	}
}

func TestReferenceHolm(t *testing.T) {
	ref := loadReference(t)
	if len(ref.Holm) == 0 {
		t.Fatal("no reference values")
	}
	for _, r := range ref.Holm {
		got := Holm(r.P)
		for i := range got {
			if !closeTo(got[i], r.Adjusted[i]) {
				t.Errorf("Holm(%v) = %v, reference %v", r.P, got, r.Adjusted)
				break
			}
		}
	}
}
