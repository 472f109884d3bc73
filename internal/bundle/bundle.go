// Package bundle writes and reads a published run: a directory that holds
// a lab's spec, every record of one run byte for byte, the reports made
// from them and a checksum manifest, so that someone else can check the
// figures (lab reproduce) on their own machines.
//
// Layout (paths relative to the bundle directory):
//
//	bundle.json              Info: format, run, spec hash, margin, host notes
//	spec/*.hcl               the lab's spec files
//	spec/.lab.lock.hcl       the lab's lock file, when it has one
//	spec/published.labvars   the variables' values, sensitive ones left out
//	records/<run>/…          results/<run>/ of the lab, byte for byte
//	report.html              lab report -format html
//	plot.svg                 lab report -format svg
//	POST.md                  table, plot, provenance, the command to reproduce
//	MANIFEST.sha256          "<sha256>  <path>" for every other file
//
// The manifest is in sha256sum's format, so `sha256sum -c MANIFEST.sha256`
// run inside the bundle checks it too.
package bundle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Format is the version of the bundle layout that Info.Format holds.
const Format = 1

// Names of the files and directories of a bundle.
const (
	InfoFile     = "bundle.json"
	ManifestFile = "MANIFEST.sha256"
	SpecDir      = "spec"
	RecordsDir   = "records"
	ReportFile   = "report.html"
	PlotFile     = "plot.svg"
	PostFile     = "POST.md"
	// VarFile, inside SpecDir, holds the values of the lab's variables
	// when it has any (sensitive ones never).
	VarFile = "published.labvars"
)

// Info is bundle.json: what a reader needs before opening the records.
type Info struct {
	Format int    `json:"format"`
	Lab    string `json:"lab"`
	RunID  string `json:"run_id"`
	// SpecHash is the hash of the spec files (as results.RunInfo.SpecHash):
	// the run was made with exactly the spec in spec/.
	SpecHash   string    `json:"spec_hash"`
	LabVersion string    `json:"lab_version"`
	Published  time.Time `json:"published"`
	// Margin is the equivalence margin, a fraction of the published mean,
	// that lab reproduce uses unless told otherwise.
	Margin float64 `json:"margin"`
	// ShapeMargin is the margin of a shape's change (a fraction: the ratio
	// of a cell to its reference may change by ×(1 ± ShapeMargin)) that lab
	// reproduce uses unless told otherwise; 0 in bundles made before it,
	// which read as results.DefaultShapeMargin.
	ShapeMargin float64 `json:"shape_margin,omitempty"`
	// BackEnds are the provider types the run used ("local", "libvirt").
	BackEnds []string `json:"back_ends,omitempty"`
	// HostNotes say what about the publishing machine a reader must know
	// to judge the figures ("TCG, no KVM acceleration").
	HostNotes []string `json:"host_notes,omitempty"`
	// VarFile is the variables file inside the bundle ("" when the lab has
	// no variables); OmittedVariables names the sensitive variables whose
	// values were left out: a reproducer sets them with -var.
	VarFile          string   `json:"var_file,omitempty"`
	OmittedVariables []string `json:"omitted_variables,omitempty"`
	// Reproduce is the command that reproduces the bundle, as printed.
	Reproduce string `json:"reproduce"`
}

// WriteInfo writes bundle.json into dir.
func WriteInfo(dir string, info Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, InfoFile), append(data, '\n'), 0o644)
}

// ReadInfo reads dir's bundle.json and refuses a format this lab does not
// know.
func ReadInfo(dir string) (Info, error) {
	var info Info
	data, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if err != nil {
		return info, fmt.Errorf("bundle %s: %w", dir, err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("bundle %s: %s: %w", dir, InfoFile, err)
	}
	if info.Format != Format {
		return info, fmt.Errorf("bundle %s: %s has format %d, this lab reads format %d", dir, InfoFile, info.Format, Format)
	}
	if info.RunID == "" || info.RunID != filepath.Base(info.RunID) {
		return info, fmt.Errorf("bundle %s: %s: invalid run id %q", dir, InfoFile, info.RunID)
	}
	return info, nil
}

// CopyTree copies every regular file under src to the same relative path
// under dst, byte for byte, creating directories as needed. Anything that
// is neither a directory nor a regular file (a symlink, a socket) is an
// error: a bundle holds files only.
func CopyTree(dst, src string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("copy %s: not a regular file", path)
		}
		return CopyFile(target, path)
	})
}

// CopyFile copies the regular file src to dst (mode 0644).
func CopyFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
