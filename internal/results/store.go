package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lab-bench/lab/internal/atomicfile"
)

// Run statuses.
const (
	// StatusRunning is written when a run starts; a run left in this
	// status ended without Finish (the process died).
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// runIDLayout is the UTC timestamp a run id is made of.
const runIDLayout = "20060102T150405Z"

// infoFile is the name of a run's RunInfo file.
const infoFile = "run.json"

// RunInfo describes one run (one apply): results/<id>/run.json.
type RunInfo struct {
	ID          string    `json:"id"`
	Lab         string    `json:"lab"`
	LabFileHash string    `json:"lab_file_hash"`
	SpecHash    string    `json:"spec_hash"` // hash over all the lab's spec files
	LabVersion  string    `json:"lab_version"`
	Host        string    `json:"host,omitempty"` // machine that ran lab
	PID         int       `json:"pid,omitempty"`  // process that ran it, to tell a dead run from a live one
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended,omitzero"`
	Status      string    `json:"status"`
	// Note says why a run has its status, when lab knows more than the
	// status says ("the process … ended without finishing it").
	Note string `json:"note,omitempty"`
	// Experiments in spec order.
	Experiments []string `json:"experiments"`
	// OrderSeed is the seed the plan drew its random run order from
	// (`lab apply -order-seed` replays it; -resume reuses it); zero when
	// no experiment orders its runs at random, and in runs made before.
	OrderSeed int64 `json:"order_seed,omitempty"`
	// Planned is how many repeats the run's plan gave each cell, so that a
	// lost last repeat reads as missing (CellGroup.Missing). Runs recorded
	// before it existed have none: only gaps below the highest recorded
	// repeat count as missing there.
	Planned []PlannedCell `json:"planned,omitempty"`
	// Design is each experiment's block design as the plan laid out its
	// runs (DesignFoldover, DesignRounds, DesignSequential), by experiment
	// name: whether its records can be paired by block (Repeat). Runs
	// recorded before it have none and read as DesignBlocks (DesignOf).
	Design map[string]string `json:"design,omitempty"`
	// Stops are the experiments with a budget that stopped before their
	// planned blocks, and why (BudgetStop), written as they stop.
	Stops []BudgetStop `json:"stops,omitempty"`
}

// DesignOf is experiment's block design in the run: DesignBlocks when the
// run recorded none (every run before the foldover, which laid out
// order = "random" as plain randomized blocks).
func (info RunInfo) DesignOf(experiment string) string {
	if d := info.Design[experiment]; d != "" {
		return d
	}
	return DesignBlocks
}

// Why an experiment with a budget stopped (BudgetStop.Reason).
const (
	StopDecided = "decided"      // every throughput band decided
	StopBudget  = "budget spent" // the next stopping unit would not fit
)

// BudgetStop is where and why an experiment with a budget stopped:
// after Blocks whole blocks, for Reason (StopDecided, StopBudget), with
// Detail for people.
type BudgetStop struct {
	Experiment string `json:"experiment"`
	Reason     string `json:"reason"`
	Blocks     int    `json:"blocks"`
	Detail     string `json:"detail"`
}

// PlannedCell is the number of repeats (warm-ups not counted) a run's
// plan gave one cell; for adaptive repeats, the minimum that always runs.
type PlannedCell struct {
	Experiment string `json:"experiment"`
	Pair       string `json:"pair"`
	CellKey    string `json:"cell_key"`
	Repeats    int    `json:"repeats"`
	// Sequential is the design whose looks stopped the cell on its
	// verdict (adaptive repeats until = "verdict", or a budget): lab check
	// judges the cell's throughput bands by the same rule
	// (GroupSeqVerdict). Nil for cells with a fixed number of repeats.
	Sequential *SeqDesign `json:"sequential,omitempty"`
}

// Plan gives every record its experiment's block design (Record.design,
// "" reading as DesignBlocks) and the number of repeats planned for its
// cell (Record.planned), which Group and the verdicts read: Store.Load
// calls it, and so do simulations that make records of their own.
func (info RunInfo) Plan(recs []Record) {
	for i := range recs {
		recs[i].design = info.Design[recs[i].Experiment] // "" reads as DesignBlocks
	}
	if len(info.Planned) == 0 {
		return
	}
	type key struct{ exp, pair, cell string }
	planned := map[key]PlannedCell{}
	for _, c := range info.Planned {
		planned[key{c.Experiment, c.Pair, c.CellKey}] = c
	}
	for i := range recs {
		r := &recs[i]
		c := planned[key{r.Experiment, r.Pair, r.CellKey}]
		r.planned, r.seq = c.Repeats, c.Sequential
	}
}

// Store lays out runs under Dir (the lab's results/ directory):
//
//	<Dir>/<run-id>/run.json
//	<Dir>/<run-id>/<experiment>/<pair>/<cell-key>/r<repeat>.json
//
// Every file is pretty-printed JSON, mode 0644, written atomically.
type Store struct {
	Dir string
	// Redact, when set, filters every file written (sensitive values out).
	Redact func([]byte) []byte
	// ReadOnly stores (a published bundle's records) are never written
	// to: a dead run reads as interrupted, but its run.json is not
	// corrected nor its temporary files removed.
	ReadOnly bool
}

// Run is a run being written. Its methods are safe for concurrent use.
type Run struct {
	dir     string
	mu      sync.Mutex
	info    RunInfo
	written map[string]bool // record paths written by this Run
	redact  func([]byte) []byte
}

// NewRun creates the run's directory and writes its run.json with status
// "running". When info.ID is empty the id is info.Started (now when zero)
// as a UTC timestamp, with "-2", "-3" … appended when that id is taken.
func (s Store) NewRun(info RunInfo) (*Run, error) {
	if info.Started.IsZero() {
		info.Started = time.Now()
	}
	info.Started = info.Started.UTC()
	info.Status = StatusRunning
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("new run: %w", err)
	}
	var err error
	if info.ID != "" {
		err = os.Mkdir(filepath.Join(s.Dir, info.ID), 0o755)
	} else {
		base := info.Started.Format(runIDLayout)
		for n := 1; ; n++ {
			info.ID = base
			if n > 1 {
				info.ID = fmt.Sprintf("%s-%d", base, n)
			}
			err = os.Mkdir(filepath.Join(s.Dir, info.ID), 0o755)
			if !errors.Is(err, fs.ErrExist) {
				break
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("new run: %w", err)
	}
	r := &Run{dir: filepath.Join(s.Dir, info.ID), info: info, written: map[string]bool{}, redact: s.Redact}
	if err := writeJSON(filepath.Join(r.dir, infoFile), info, r.redact); err != nil {
		return nil, fmt.Errorf("new run: %w", err)
	}
	return r, nil
}

// ID is the run id.
func (r *Run) ID() string { return r.info.ID }

// Dir is the run's directory.
func (r *Run) Dir() string { return r.dir }

// Write stores one record at <experiment>/<pair>/<cell-key>/r<repeat>.json
// (w<repeat>.json for a warm-up run). The record's RunID is set to the
// run's when empty and must match it otherwise; writing the same record
// file twice is an error (it would overwrite a measurement).
func (r *Run) Write(rec Record) error {
	if rec.RunID == "" {
		rec.RunID = r.info.ID
	}
	if rec.RunID != r.info.ID {
		return fmt.Errorf("write record: record of run %s given to run %s", rec.RunID, r.info.ID)
	}
	if rec.Schema == 0 {
		rec.Schema = Schema
	}
	rel := RecordPath(rec)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.written[rel] {
		return fmt.Errorf("write record %s: already written in this run", rel)
	}
	path := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	if err := writeJSON(path, rec, r.redact); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	r.written[rel] = true
	if !slices.Contains(r.info.Experiments, rec.Experiment) {
		r.info.Experiments = append(r.info.Experiments, rec.Experiment)
	}
	return nil
}

// Finish records the run's end time and final status (StatusComplete,
// StatusFailed or StatusInterrupted) in run.json.
func (r *Run) Finish(status string) error {
	switch status {
	case StatusComplete, StatusFailed, StatusInterrupted:
	default:
		return fmt.Errorf("finish run %s: unknown status %q", r.info.ID, status)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.info.Status = status
	r.info.Ended = time.Now().UTC()
	if err := writeJSON(filepath.Join(r.dir, infoFile), r.info, r.redact); err != nil {
		return fmt.Errorf("finish run %s: %w", r.info.ID, err)
	}
	return nil
}

// RecordStop notes that an experiment with a budget stopped, in run.json
// at once (written atomically), so that an apply interrupted afterwards
// still says why the experiment ran fewer blocks than planned.
func (r *Run) RecordStop(s BudgetStop) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.info.Stops = append(r.info.Stops, s)
	if err := writeJSON(filepath.Join(r.dir, infoFile), r.info, r.redact); err != nil {
		return fmt.Errorf("record the stop of experiment %s in run %s: %w", s.Experiment, r.info.ID, err)
	}
	return nil
}

// RecordPath is where a record lives inside its run's directory. Every
// element is one bounded, safe path element, and distinct cells of an
// experiment and pair get distinct directories (see CellDir).
func RecordPath(rec Record) string {
	name := fmt.Sprintf("r%d.json", rec.Repeat)
	if rec.Warmup {
		name = fmt.Sprintf("w%d.json", rec.Repeat)
	}
	return filepath.Join(Sanitize(rec.Experiment), Sanitize(rec.Pair), CellDir(rec.Cell, rec.CellKey), name)
}

// MaxPathElement bounds the length of each element of a record's path,
// well under the 255 bytes file systems allow.
const MaxPathElement = 128

// hashSuffixLen is the length of "~" and the 12 hex digits appended to
// a name that had to be shortened or changed.
const hashSuffixLen = 13

// CellDir names a cell's directory. When every matrix value is plain
// (letters, digits, "." and "-") it is the cell key with "," as "_"
// ("mtu=1500_gro=false"): given the experiment's key names it can be read
// back, so distinct cells never share it. Otherwise, or when it would be
// longer than MaxPathElement, it is shortened and gets "~" and a hash of
// the names and values appended. Without cell values (an experiment
// without a matrix) it is Sanitize(key).
func CellDir(cell []CellValue, key string) string {
	if len(cell) == 0 {
		return Sanitize(key)
	}
	plain := true
	h := sha256.New()
	for _, c := range cell {
		plain = plain && plainValue(c.Value)
		fmt.Fprintf(h, "%d:%s%d:%s", len(c.Name), c.Name, len(c.Value), c.Value)
	}
	out := mapName(key)
	if plain && len(out) <= MaxPathElement {
		return out
	}
	return withHash(out, h.Sum(nil))
}

func plainValue(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// Sanitize turns a name or cell key into one safe path element: letters,
// digits and "._=-" are kept, "," becomes "_", anything else "-". An empty
// key (an experiment without a matrix), "." and ".." become "default".
// When a character had to be replaced, or the result would be longer
// than MaxPathElement, it is shortened and "~" and 12 hex digits of the
// name's sha256 are appended, so that names differing only there stay
// apart ("a/b" and "a b" become "a-b~…" with different hashes).
func Sanitize(s string) string {
	out := mapName(s)
	if strings.Trim(out, ".") == "" { // "", ".", ".." and friends
		return "default"
	}
	if len(out) <= MaxPathElement && !lossy(s) {
		return out
	}
	sum := sha256.Sum256([]byte(s))
	return withHash(out, sum[:])
}

// mapName keeps letters, digits and "._=-", turns "," into "_" and any
// other character into "-".
func mapName(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune("._=-", c):
			b.WriteRune(c)
		case c == ',':
			b.WriteByte('_')
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// lossy reports whether mapName replaces a character of s with "-".
func lossy(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._=-,", c)) {
			return true
		}
	}
	return false
}

// withHash shortens name to leave room for "~" and 12 hex digits of sum.
func withHash(name string, sum []byte) string {
	if len(name) > MaxPathElement-hashSuffixLen {
		name = name[:MaxPathElement-hashSuffixLen]
	}
	return name + "~" + hex.EncodeToString(sum)[:hashSuffixLen-1]
}

// writeJSON writes v pretty-printed to path atomically, mode 0644,
// through redact when set.
func writeJSON(path string, v any, redact func([]byte) []byte) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if redact != nil {
		data = redact(data)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}
