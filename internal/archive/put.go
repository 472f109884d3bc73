package archive

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// timeLayout is how times are stored: fixed-width UTC, which sorts as
// it reads on both databases.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func timeText(t time.Time) string { return t.UTC().Format(timeLayout) }

// Put stores a run and its records in one transaction: all of it or,
// when anything fails (the database goes away half-way), none of it.
// Putting a run again stores only what is new — the run's newer run.json
// and records it did not have (a resumed run) — so importing twice is a
// no-op. It returns how many records were new.
func (s *Store) Put(ctx context.Context, run Run) (added int, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("archive run %s: %w", run.Info.ID, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
			err = fmt.Errorf("archive run %s: %w (rolled back: nothing of it was stored)", run.Info.ID, err)
		}
	}()
	if err := s.putRun(ctx, tx, run.Info, run.InfoJSON); err != nil {
		return 0, err
	}
	for _, rec := range run.Records {
		n, err := s.putRecord(ctx, tx, run.Info, rec)
		if err != nil {
			return 0, fmt.Errorf("record %s: %w", rec.Path, err)
		}
		added += n
		if s.failAfter != nil {
			if err := s.failAfter(added); err != nil {
				return 0, err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return added, nil
}

// putRun inserts the run, or updates its status and run.json.
func (s *Store) putRun(ctx context.Context, tx *sql.Tx, info results.RunInfo, src []byte) error {
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO runs (lab, host, run_id, applied, status, lab_version, spec_hash, run_json)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (lab, host, run_id) DO UPDATE SET status = excluded.status, run_json = excluded.run_json`),
		info.Lab, info.Host, info.ID, timeText(info.Started), info.Status, info.LabVersion, info.SpecHash, string(src))
	return err
}

// putRecord inserts a record and its metric values unless the run has
// it already; it returns 1 when it was new.
func (s *Store) putRecord(ctx context.Context, tx *sql.Tx, info results.RunInfo, rec Record) (int, error) {
	r, p := rec.Record, rec.Record.Provenance
	res, err := tx.ExecContext(ctx, s.q(`INSERT INTO records (lab, host, run_id, path, experiment, pair, cell, repeat_no,
		warmup, failed, started, lab_version, spec_hash, provider, server_kernel, client_kernel,
		server_cpu_model, client_cpu_model, server_driver, client_driver, server_template, client_template,
		tool_version, record_json)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (lab, host, run_id, path) DO NOTHING`),
		info.Lab, info.Host, info.ID, rec.Path, r.Experiment, r.Pair, r.CellKey, r.Repeat,
		boolInt(r.Warmup), boolInt(r.Error != ""), timeText(r.Start), p.LabVersion, info.SpecHash, p.Provider,
		p.ServerKernel, p.ClientKernel, p.ServerCPUModel, p.ClientCPUModel, p.ServerDriver, p.ClientDriver,
		p.ServerTemplateID, p.ClientTemplateID, p.ToolVersion, string(rec.JSON))
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, err
	}
	for _, m := range results.Metrics {
		v, ok := m.Value(r)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO metrics (lab, host, run_id, path, metric, value) VALUES (?, ?, ?, ?, ?, ?)`),
			info.Lab, info.Host, info.ID, rec.Path, m.Key, v); err != nil {
			return 0, err
		}
	}
	return 1, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
