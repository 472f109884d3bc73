package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// Run is one run as the archive stores it: its run.json and its record
// files, each parsed and byte for byte.
type Run struct {
	Info     results.RunInfo
	InfoJSON []byte
	Records  []Record
}

// Record is one record file of a run.
type Record struct {
	// Path is the file's path inside the run directory, slash-separated
	// ("mtu/veth/mtu=1500/r1.json").
	Path   string
	JSON   []byte
	Record results.Record
}

// ReadRun reads a run directory (results/<id>, or a bundle's
// records/<id>): run.json and every record file below it.
func ReadRun(dir string) (Run, error) {
	var run Run
	src, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return run, err
	}
	if err := json.Unmarshal(src, &run.Info); err != nil {
		return run, fmt.Errorf("%s: %w", filepath.Join(dir, "run.json"), err)
	}
	run.InfoJSON = src
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isRecordFile(d.Name()) {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var rec results.Record
		if err := json.Unmarshal(src, &rec); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(dir, path)
		run.Records = append(run.Records, Record{Path: filepath.ToSlash(rel), JSON: src, Record: rec})
		return nil
	})
	return run, err
}

// isRecordFile reports whether name is a record's file name: r<n>.json
// or w<n>.json (results.RecordPath); run.json and temporary files are not.
func isRecordFile(name string) bool {
	if !strings.HasSuffix(name, ".json") || len(name) < 7 || (name[0] != 'r' && name[0] != 'w') {
		return false
	}
	for _, c := range strings.TrimSuffix(name[1:], ".json") {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// FindRuns lists the run directories below each of dirs (a lab's
// results/, a lab directory, a pinned bundle): every directory holding a
// run.json, in path order.
func FindRuns(dirs ...string) ([]string, error) {
	var out []string
	for _, root := range dirs {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			if !d.IsDir() && d.Name() == "run.json" {
				out = append(out, filepath.Dir(path))
				return fs.SkipDir // the run's own directory: its records are not runs
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, errors.New("no runs (no run.json) below " + strings.Join(dirs, ", "))
	}
	return slices.Compact(out), nil
}
