package archive

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Filter selects a series of metric values (Points). Empty fields
// select everything; Since, when set, keeps runs applied at or after it.
type Filter struct {
	Lab        string
	Experiment string
	Pair       string
	Cell       string // cell key ("mtu=1500,streams=1")
	Metric     string // results.Metric key (results.MetricThroughput)
	Since      time.Time
}

// Point is one measured value of a cell: one repeat of one run, with the
// provenance that tells whether two points are comparable.
type Point struct {
	RunID      string
	Applied    time.Time // the run's start
	Lab        string
	Experiment string
	Pair       string
	Cell       string
	Repeat     int
	Metric     string
	Value      float64
	LabVersion string
	SpecHash   string
	Kernel     string // the server's kernel
	CPUModel   string // the server's CPU model
	Provider   string
	Host       string // the machine that ran lab
}

// Points returns the values f selects, oldest run first (then pair,
// cell, metric and repeat). Warm-ups and failed runs are left out.
func (s *Store) Points(ctx context.Context, f Filter) ([]Point, error) {
	where := []string{"r.warmup = 0", "r.failed = 0"}
	var args []any
	for _, c := range []struct{ col, val string }{
		{"m.lab", f.Lab}, {"r.experiment", f.Experiment}, {"r.pair", f.Pair}, {"r.cell", f.Cell}, {"m.metric", f.Metric},
	} {
		if c.val != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.val)
		}
	}
	if !f.Since.IsZero() {
		where = append(where, "u.applied >= ?")
		args = append(args, timeText(f.Since))
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT m.run_id, u.applied, m.lab, r.experiment, r.pair, r.cell, r.repeat_no,
		m.metric, m.value, r.lab_version, r.spec_hash, r.server_kernel, r.server_cpu_model, r.provider, m.host
		FROM metrics m
		JOIN records r ON r.lab = m.lab AND r.host = m.host AND r.run_id = m.run_id AND r.path = m.path
		JOIN runs u ON u.lab = m.lab AND u.host = m.host AND u.run_id = m.run_id
		WHERE `+strings.Join(where, " AND ")+`
		ORDER BY u.applied, m.run_id, r.pair, r.cell, m.metric, r.repeat_no`), args...)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", s.Where, err)
	}
	defer func() { _ = rows.Close() }()
	var out []Point
	for rows.Next() {
		var p Point
		var applied string
		if err := rows.Scan(&p.RunID, &applied, &p.Lab, &p.Experiment, &p.Pair, &p.Cell, &p.Repeat,
			&p.Metric, &p.Value, &p.LabVersion, &p.SpecHash, &p.Kernel, &p.CPUModel, &p.Provider, &p.Host); err != nil {
			return nil, fmt.Errorf("archive %s: %w", s.Where, err)
		}
		p.Applied, _ = time.Parse(timeLayout, applied)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive %s: %w", s.Where, err)
	}
	return out, nil
}

// RunCount is how many runs and records the archive holds.
func (s *Store) RunCount(ctx context.Context) (runs, records int, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM records)").Scan(&runs, &records)
	return runs, records, err
}
