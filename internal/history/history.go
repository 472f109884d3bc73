// Package history is `lab history`: each cell's series of a metric over
// the lab's applies, the change points in it (package changepoint:
// E-divisive means with Otava's t-test), what differs in provenance
// between the applies on either side of each, and the verdict of
// -fail-on change, rendered as text, JSON or one HTML page of trend plots.
//
// The series come from a Source: the results/ directory (ResultsSource)
// or an archive with the same read API.
package history

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/lab-bench/lab/internal/changepoint"
)

// Point is one value of a metric for one cell in one apply, with the
// apply's provenance.
type Point struct {
	RunID      string    `json:"run_id"`
	Applied    time.Time `json:"applied"`
	Lab        string    `json:"lab"`
	Experiment string    `json:"experiment"`
	Pair       string    `json:"pair"`
	Cell       string    `json:"cell"` // the cell key ("mtu=1500,gro=false")
	Metric     string    `json:"metric"`
	Value      float64   `json:"value"`
	LabVersion string    `json:"lab_version,omitempty"`
	SpecHash   string    `json:"spec_hash,omitempty"`
	Kernel     string    `json:"kernel,omitempty"` // the server's
	Host       string    `json:"host,omitempty"`   // the machine that ran lab
}

// Filter narrows what a Source returns; empty fields match everything.
type Filter struct {
	Lab, Experiment, Cell, Metric string
	Since                         time.Time
}

// Source gives the points of the lab's applies.
type Source interface {
	Points(ctx context.Context, f Filter) ([]Point, error)
}

// Apply is one point of a series: an apply's value (the mean of the
// source's points of that run) and its provenance.
type Apply struct {
	RunID      string    `json:"run_id"`
	Applied    time.Time `json:"applied"`
	Value      float64   `json:"value"`
	LabVersion string    `json:"lab_version,omitempty"`
	SpecHash   string    `json:"spec_hash,omitempty"`
	Kernel     string    `json:"kernel,omitempty"`
	Host       string    `json:"host,omitempty"`
}

// Series is one cell's metric over the applies, oldest first, with its
// change points.
type Series struct {
	Lab          string   `json:"lab,omitempty"`
	Experiment   string   `json:"experiment"`
	Pair         string   `json:"pair"`
	Cell         string   `json:"cell"`
	Metric       string   `json:"metric"`
	Applies      []Apply  `json:"applies"`
	ChangePoints []Change `json:"change_points"`
}

// Change is a change point of a series.
type Change struct {
	// Index is the first apply of the new level; Before and After the run
	// ids of the applies on either side of it.
	Index  int    `json:"index"`
	Before string `json:"before"`
	After  string `json:"after"`
	// Stats compare the applies since the previous change point with
	// those up to the next: means, p-value, difference and its 95 % CI.
	Stats changepoint.Stats `json:"stats"`
	// Relative, RelativeLow and RelativeHigh are the difference and its
	// interval over the mean before (nil when that mean is 0).
	Relative     *float64 `json:"relative,omitempty"`
	RelativeLow  *float64 `json:"relative_low,omitempty"`
	RelativeHigh *float64 `json:"relative_high,omitempty"`
	// Differs is what differs in provenance between Before and After.
	Differs []Difference `json:"differs,omitempty"`
	// New says the change point was not found in the series without its
	// newest apply (what -fail-on change fails on).
	New bool `json:"new"`
}

// Difference is one provenance field that differs across a change point:
// its distinct values in the applies before it and after it (as far as
// the neighbouring change points), and the first apply after it with a
// value not seen before ("" when the after side only lacks a value).
type Difference struct {
	Field    string   `json:"field"`
	Before   []string `json:"before"`
	After    []string `json:"after"`
	FirstNew string   `json:"first_new,omitempty"`
}

// Build groups points into series (by lab, experiment, pair, cell and
// metric, in first-seen order), one apply per run id, oldest first.
func Build(points []Point) []Series {
	type key struct{ lab, exp, pair, cell, metric string }
	var order []key
	byKey := map[key]map[string][]Point{}
	for _, p := range points {
		k := key{p.Lab, p.Experiment, p.Pair, p.Cell, p.Metric}
		if byKey[k] == nil {
			byKey[k] = map[string][]Point{}
			order = append(order, k)
		}
		byKey[k][p.RunID] = append(byKey[k][p.RunID], p)
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		s := Series{Lab: k.lab, Experiment: k.exp, Pair: k.pair, Cell: k.cell, Metric: k.metric}
		for id, ps := range byKey[k] {
			a := Apply{RunID: id, Applied: ps[0].Applied, LabVersion: ps[0].LabVersion, SpecHash: ps[0].SpecHash,
				Kernel: ps[0].Kernel, Host: ps[0].Host}
			for _, p := range ps {
				a.Value += p.Value / float64(len(ps))
			}
			s.Applies = append(s.Applies, a)
		}
		slices.SortFunc(s.Applies, func(a, b Apply) int {
			return cmp.Or(a.Applied.Compare(b.Applied), cmp.Compare(a.RunID, b.RunID))
		})
		out = append(out, s)
	}
	return out
}

// Analyze finds each series' change points and marks the new ones.
func Analyze(series []Series, opt changepoint.Options) {
	for i := range series {
		s := &series[i]
		values := make([]float64, len(s.Applies))
		for j, a := range s.Applies {
			values[j] = a.Value
		}
		var before []changepoint.ChangePoint
		if len(values) > 1 {
			before = changepoint.Detect(values[:len(values)-1], opt)
		}
		s.ChangePoints = nil
		for _, c := range changepoint.Detect(values, opt) {
			s.ChangePoints = append(s.ChangePoints, change(s.Applies, c, before))
		}
	}
}

// change describes c; before are the change points found without the
// newest apply: c is new unless one of them lies within one apply of it.
func change(applies []Apply, c changepoint.ChangePoint, before []changepoint.ChangePoint) Change {
	b, a := applies[c.Index-1], applies[c.Index]
	window := applies[c.Index-c.Stats.NBefore : c.Index+c.Stats.NAfter]
	ch := Change{Index: c.Index, Before: b.RunID, After: a.RunID, Stats: c.Stats, Differs: differs(window, c.Stats.NBefore), New: true}
	if rel, lo, hi, ok := c.Stats.Relative(); ok {
		ch.Relative, ch.RelativeLow, ch.RelativeHigh = &rel, &lo, &hi
	}
	for _, o := range before {
		if o.Index >= c.Index-1 && o.Index <= c.Index+1 {
			ch.New = false
		}
	}
	return ch
}

// provenance are the fields of an apply that differs compares.
var provenance = []struct {
	name string
	get  func(Apply) string
}{
	{"lab version", func(a Apply) string { return a.LabVersion }},
	{"spec hash", func(a Apply) string { return a.SpecHash }},
	{"kernel", func(a Apply) string { return a.Kernel }},
	{"host", func(a Apply) string { return a.Host }},
}

// differs lists the provenance fields whose values differ between the
// window's applies before split and those after: the distinct values on
// each side, and the first apply after the split with a value not seen
// before it. (E-divisive can place a change one apply off its cause; the
// sides' values still show the cause.)
func differs(window []Apply, split int) []Difference {
	var out []Difference
	for _, f := range provenance {
		var before, after []string
		for _, a := range window[:split] {
			if v := f.get(a); !slices.Contains(before, v) {
				before = append(before, v)
			}
		}
		first := ""
		for _, a := range window[split:] {
			v := f.get(a)
			if !slices.Contains(after, v) {
				after = append(after, v)
			}
			if first == "" && !slices.Contains(before, v) {
				first = a.RunID
			}
		}
		if !slices.Equal(before, after) {
			out = append(out, Difference{Field: f.name, Before: before, After: after, FirstNew: first})
		}
	}
	return out
}

// Failed says whether a series has a new change point: the newest apply
// lies after a significant change that was not there before it.
func Failed(series []Series) bool {
	for _, s := range series {
		for _, c := range s.ChangePoints {
			if c.New {
				return true
			}
		}
	}
	return false
}
