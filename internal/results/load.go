package results

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lab-bench/lab/internal/atomicfile"
)

// Runs lists the runs in the store, oldest first. Directories without a
// run.json are not runs and are skipped; a run.json that does not parse is
// an error.
func (s Store) Runs() ([]RunInfo, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var runs []RunInfo
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		info, err := s.readInfo(e.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, info)
	}
	slices.SortFunc(runs, func(a, b RunInfo) int { return compareRunIDs(a.ID, b.ID) })
	return runs, nil
}

// Latest returns the id of the newest run.
func (s Store) Latest() (string, error) {
	runs, err := s.Runs()
	if err != nil {
		return "", err
	}
	if len(runs) == 0 {
		return "", fmt.Errorf("no runs in %s", s.Dir)
	}
	return runs[len(runs)-1].ID, nil
}

// Run id aliases accepted by Resolve.
const (
	AliasLatest   = "latest"   // the newest run
	AliasPrevious = "previous" // the run before the newest
)

// Resolve turns a run id or alias ("latest", "previous") into a run id.
// Ids are returned as given (Load checks they exist).
func (s Store) Resolve(id string) (string, error) {
	back := 0
	switch id {
	case AliasLatest:
	case AliasPrevious:
		back = 1
	default:
		return id, nil
	}
	runs, err := s.Runs()
	if err != nil {
		return "", err
	}
	if len(runs) <= back {
		return "", fmt.Errorf("%q: %s holds %d run(s)", id, s.Dir, len(runs))
	}
	return runs[len(runs)-1-back].ID, nil
}

// Load reads a run's info and all its records, ordered by experiment (spec
// order as listed in run.json), pair (in the order the run reached them),
// cell (matrix order), warm-ups first, then repeat. Each record knows the
// repeats planned for its cell (RunInfo.Planned), so that Group counts a
// lost last repeat as missing.
func (s Store) Load(runID string) (RunInfo, []Record, error) {
	if runID == "" || runID != filepath.Base(runID) || strings.HasPrefix(runID, ".") {
		return RunInfo{}, nil, fmt.Errorf("invalid run id %q", runID)
	}
	info, err := s.readInfo(runID)
	if errors.Is(err, fs.ErrNotExist) {
		return RunInfo{}, nil, fmt.Errorf("no run %s in %s", runID, s.Dir)
	}
	if err != nil {
		return RunInfo{}, nil, err
	}
	var recs []Record
	root := filepath.Join(s.Dir, runID)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || filepath.Dir(path) == root || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			return nil
		}
		var rec Record
		if err := readJSON(path, &rec); err != nil {
			return err
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return RunInfo{}, nil, fmt.Errorf("load run %s: %w", runID, err)
	}
	SortRecords(info.Experiments, recs)
	info.Plan(recs)
	return info, recs, nil
}

// SortRecords orders records by experiment (the position in experiments,
// unknown ones after, by name), pair (by the first start time among the
// pair's records in that experiment), cell (CellIndex, then first start
// time, then key), warm-ups first, then repeat.
func SortRecords(experiments []string, recs []Record) {
	expRank := func(name string) int {
		if i := slices.Index(experiments, name); i >= 0 {
			return i
		}
		return len(experiments)
	}
	type key struct{ exp, pair, cell string }
	pairStart := map[key]time.Time{}
	cellStart := map[key]time.Time{}
	earliest := func(m map[key]time.Time, k key, t time.Time) {
		if old, ok := m[k]; !ok || t.Before(old) {
			m[k] = t
		}
	}
	for _, r := range recs {
		earliest(pairStart, key{r.Experiment, r.Pair, ""}, r.Start)
		earliest(cellStart, key{r.Experiment, r.Pair, r.CellKey}, r.Start)
	}
	slices.SortStableFunc(recs, func(a, b Record) int {
		pa, pb := key{a.Experiment, a.Pair, ""}, key{b.Experiment, b.Pair, ""}
		ca, cb := key{a.Experiment, a.Pair, a.CellKey}, key{b.Experiment, b.Pair, b.CellKey}
		return cmp.Or(
			cmp.Compare(expRank(a.Experiment), expRank(b.Experiment)),
			strings.Compare(a.Experiment, b.Experiment),
			pairStart[pa].Compare(pairStart[pb]),
			strings.Compare(a.Pair, b.Pair),
			cmp.Compare(a.CellIndex, b.CellIndex),
			cellStart[ca].Compare(cellStart[cb]),
			strings.Compare(a.CellKey, b.CellKey),
			-compareBool(a.Warmup, b.Warmup),
			cmp.Compare(a.Repeat, b.Repeat),
		)
	})
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}

// readInfo reads a run's run.json. A run still "running" whose process
// is gone from this host (killed with -9, a crash, a power cut) is
// interrupted: it is reported so, and run.json is corrected when it can be.
func (s Store) readInfo(runID string) (RunInfo, error) {
	var info RunInfo
	path := filepath.Join(s.Dir, runID, infoFile)
	if err := readJSON(path, &info); err != nil {
		return info, err
	}
	if info.Status == StatusRunning && processGone(info) {
		info.Status = StatusInterrupted
		info.Note = "the process that ran it (pid " + strconv.Itoa(info.PID) + ") ended without finishing it"
		if s.ReadOnly {
			return info, nil
		}
		removeStrayTemps(filepath.Join(s.Dir, runID))
		data, err := json.MarshalIndent(info, "", "  ")
		if err == nil {
			err = atomicfile.Write(path, append(data, '\n'), 0o644)
		}
		if err != nil {
			// Readers correct it again; meanwhile, say the file disagrees.
			info.Note += "; run.json still says running, it could not be corrected: " + err.Error()
		}
	}
	return info, nil
}

// removeStrayTemps removes, under a run's directory, the temporary files
// (atomicfile's ".<name>.tmp-<digits>") of run.json and of records
// (r<N>.json, w<N>.json) that its process, now gone, left half-written:
// only those exact names, and only once no process can be writing them.
func removeStrayTemps(runDir string) {
	_ = filepath.WalkDir(runDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil // best effort: what cannot be read is left
		}
		if name, ok := atomicfile.TempOf(d.Name()); ok && (name == infoFile || recordFileName.MatchString(name)) {
			_ = os.Remove(path)
		}
		return nil
	})
}

// recordFileName is the name of a record file (see RecordPath).
var recordFileName = regexp.MustCompile(`^[rw][0-9]+\.json$`)

// processGone reports whether the process that started a run on this host
// no longer exists. A run from another host, or without a pid (older
// lab), cannot be judged and is taken as live.
func processGone(info RunInfo) bool {
	host, _ := os.Hostname()
	if info.PID <= 0 || info.Host == "" || info.Host != host {
		return false
	}
	return errors.Is(syscall.Kill(info.PID, 0), syscall.ESRCH)
}

// MaxJSONFile bounds a record or run.json: a file over it is refused
// before it is read (the records of a published bundle are untrusted
// input; a sparse file of any size costs nothing to make).
const MaxJSONFile = 64 << 20

// readJSON decodes the regular file path, of at most MaxJSONFile bytes.
func readJSON(path string, v any) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	fi, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", path)
	case fi.Size() > MaxJSONFile:
		return fmt.Errorf("%s has %d bytes, more than the %d a record or run.json may have", path, fi.Size(), MaxJSONFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxJSONFile+1))
	if err != nil {
		return err
	}
	if len(data) > MaxJSONFile {
		return fmt.Errorf("%s grew past %d bytes while read", path, MaxJSONFile)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// compareRunIDs orders run ids by timestamp, then numeric suffix
// ("…Z" < "…Z-2" < "…Z-10").
func compareRunIDs(a, b string) int {
	split := func(id string) (string, int) {
		base, suffix, ok := strings.Cut(id, "-")
		if !ok {
			return id, 1
		}
		n, err := strconv.Atoi(suffix)
		if err != nil {
			return id, 0
		}
		return base, n
	}
	ba, na := split(a)
	bb, nb := split(b)
	return cmp.Or(strings.Compare(ba, bb), cmp.Compare(na, nb), strings.Compare(a, b))
}
