package operation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/providers"
)

// PublishOptions are publish's flags (PublishArgs less the variables).
type PublishOptions struct {
	// Out is the bundle's directory (-o): new, or empty.
	Out string
	// Run is the run to publish ("": the latest).
	Run string
	// Margin is the equivalence margin reproduce uses by default.
	Margin float64
	// ShapeMargin is the shape margin reproduce uses by default.
	ShapeMargin float64
	// Notes are -note texts on the publishing machine.
	Notes []string
	// SignKey, when set, is the SSH private key file the manifest is
	// signed with (-sign): bundle.SignatureFile.
	SignKey string
}

// PublishArgs are publish's arguments, parsed from its flags by the CLI.
type PublishArgs struct {
	PublishOptions
	Vars Vars
}

// PublishView shows what publish wrote.
type PublishView interface {
	// Published says that run of lab (its records) went to the bundle b
	// at out.
	Published(run results.RunInfo, lab string, records int, out string, b bundle.Info)
}

// Publish is `lab publish`: it loads the lab and writes the run
// args.Run as a self-contained, signed bundle at args.Out (publishRun).
func (o *Operation) Publish(args PublishArgs, view PublishView) error {
	lab, err := o.LoadLab(args.Vars)
	if err != nil {
		return err
	}
	info, recs, b, err := o.publishRun(lab, args.Vars, args.PublishOptions)
	if err != nil {
		return err
	}
	view.Published(info, lab.Name, len(recs), args.Out, b)
	return nil
}

// publishRun writes run opt.Run of lab as a self-contained, signed bundle
// at opt.Out, whole or not at all, and returns the run and the bundle's
// info.
func (o *Operation) publishRun(lab *spec.Lab, v Vars, opt PublishOptions) (info results.RunInfo, recs []results.Record, b bundle.Info, err error) {
	info, recs, err = o.PublishableRun(lab, opt.Run)
	if err != nil {
		return info, recs, b, err
	}
	warnSingleRepeats(o.Stderr, info.ID, recs)
	tmp, err := NewBundleDir(opt.Out)
	if err != nil {
		return info, recs, b, err
	}
	// Gone once renamed into place; after a failure, a leftover
	// .lab-publish-* directory beside DIR is all a failed removal leaves.
	defer func() { _ = os.RemoveAll(tmp) }()
	b = bundle.Info{Format: bundle.Format, Lab: lab.Name, RunID: info.ID, SpecHash: info.SpecHash, LabVersion: info.LabVersion,
		Published: time.Now().UTC(), Margin: opt.Margin, ShapeMargin: opt.ShapeMargin, BackEnds: SpecBackEnds(lab), HostNotes: append(HostNotes(lab), opt.Notes...),
		Reproduce: "lab reproduce " + ShellQuote(filepath.Base(filepath.Clean(opt.Out)))}
	lock, err := o.FillBundle(lab, v, info, recs, tmp, &b)
	if err != nil {
		return info, recs, b, err
	}
	if err := WritePost(tmp, b, info, recs, lock); err != nil {
		return info, recs, b, err
	}
	if err := RefuseSecrets(lab, tmp); err != nil {
		return info, recs, b, err
	}
	if err := bundle.Sign(tmp); err != nil {
		return info, recs, b, err
	}
	if opt.SignKey != "" {
		if err := bundle.SignManifest(tmp, opt.SignKey); err != nil {
			return info, recs, b, fmt.Errorf("publish -sign: %w", err)
		}
	}
	if err := os.Remove(opt.Out); err != nil && !errors.Is(err, fs.ErrNotExist) { // an empty directory
		return info, recs, b, fmt.Errorf("publish: %w", err)
	}
	if err := os.Rename(tmp, opt.Out); err != nil {
		return info, recs, b, fmt.Errorf("publish: %w", err)
	}
	if err := os.Chmod(opt.Out, 0o755); err != nil { // MkdirTemp made it 0700
		return info, recs, b, fmt.Errorf("publish: %w", err)
	}
	return info, recs, b, nil
}

// PublishableRun loads the run to publish: a complete run of this lab made
// with exactly the spec in the lab directory, since that spec goes into
// the bundle.
func (o *Operation) PublishableRun(lab *spec.Lab, arg string) (results.RunInfo, []results.Record, error) {
	rs := results.Store{Dir: o.ResultsDir()}
	if arg == "" {
		arg = results.AliasLatest
	}
	id, err := rs.Resolve(arg)
	if err != nil {
		return results.RunInfo{}, nil, err
	}
	info, recs, err := rs.Load(id)
	switch {
	case err != nil:
		return info, nil, err
	case info.Lab != lab.Name:
		return info, nil, fmt.Errorf("run %s belongs to lab %q, not %q", id, info.Lab, lab.Name)
	case info.Status != results.StatusComplete:
		return info, nil, fmt.Errorf("run %s is %s: publish a complete run", id, info.Status)
	case info.SpecHash != lab.Hash:
		return info, nil, fmt.Errorf("the spec changed since run %s: a bundle holds the spec its run was made with; "+
			"restore that spec or publish a run of the current one", id)
	case len(recs) == 0:
		return info, nil, fmt.Errorf("run %s has no records", id)
	}
	return info, recs, nil
}

// NewBundleDir checks that out does not exist or is an empty directory
// and makes a temporary directory beside it to fill: the bundle appears
// at out whole or not at all. A symlink at out is refused, naming its
// target: the bundle is renamed into place over out, which would replace
// the link itself (issue 20, section 2).
func NewBundleDir(out string) (string, error) {
	if fi, err := os.Lstat(out); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(out)
		return "", fmt.Errorf("publish -o %s: is a symbolic link (to %s), which the bundle would replace: name the directory itself", out, target)
	}
	entries, err := os.ReadDir(out)
	switch {
	case err == nil && len(entries) > 0:
		return "", fmt.Errorf("publish -o %s: the directory is not empty", out)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("publish -o %s: %w", out, err)
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	return os.MkdirTemp(parent, ".lab-publish-*")
}

// FillBundle copies the spec, lock file, variables and records into dir and
// writes the reports and bundle.json; it reports whether the lab has a
// lock file.
func (o *Operation) FillBundle(lab *spec.Lab, v Vars, info results.RunInfo, recs []results.Record, dir string, b *bundle.Info) (bool, error) {
	specDir := filepath.Join(dir, bundle.SpecDir)
	names, err := specFiles(o.Dir)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if err := bundle.CopyFile(filepath.Join(specDir, n), filepath.Join(o.Dir, n)); err != nil {
			return false, fmt.Errorf("publish: %w", err)
		}
	}
	lock := false
	switch err := bundle.CopyFile(filepath.Join(specDir, lockfile.FileName), filepath.Join(o.Dir, lockfile.FileName)); {
	case err == nil:
		lock = true
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("publish: %w", err)
	}
	vars, omitted := publishedVars(lab)
	b.OmittedVariables = omitted
	if len(vars) > 0 {
		b.VarFile = bundle.VarFile
		if err := os.WriteFile(filepath.Join(specDir, bundle.VarFile), vars, 0o644); err != nil {
			return false, err
		}
	}
	if err := bundle.CopyTree(filepath.Join(dir, bundle.RecordsDir, info.ID), filepath.Join(o.ResultsDir(), info.ID)); err != nil {
		return false, fmt.Errorf("publish: %w", err)
	}
	groups := results.Group(recs)
	opt := report.Options{Records: recs}
	opt.Outcomes, opt.ChecksNote = o.ReportOutcomes(v, info, groups)
	for file, format := range map[string]string{bundle.ReportFile: "html", bundle.PlotFile: "svg"} {
		var buf bytes.Buffer
		if err := report.Render(&buf, format, info, groups, opt); err != nil {
			return false, err
		}
		if err := os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644); err != nil {
			return false, err
		}
	}
	return lock, bundle.WriteInfo(dir, *b)
}

// specFiles are the lab's spec files in dir, as spec.Load reads them:
// *.hcl but hidden ones.
func specFiles(dir string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(dir, "*.hcl"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range all {
		if n := filepath.Base(p); !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out, nil
}

// publishedVars renders the values of the lab's variables as a variables
// file, leaving the sensitive ones out (their names come back).
func publishedVars(lab *spec.Lab) ([]byte, []string) {
	f := hclwrite.NewEmptyFile()
	var omitted []string
	n := 0
	for _, name := range slices.Sorted(maps.Keys(lab.Variables)) {
		val := lab.Variables[name]
		if lab.Sensitive[name] {
			omitted = append(omitted, name)
			continue
		}
		if !val.IsWhollyKnown() || val.IsNull() {
			continue
		}
		f.Body().SetAttributeValue(name, val)
		n++
	}
	if n == 0 {
		return nil, omitted
	}
	head := "# The values of the lab's variables when its run was published (lab publish).\n"
	return append([]byte(head), hclwrite.Format(f.Bytes())...), omitted
}

// RefuseSecrets refuses a bundle any of whose files holds the value of a
// sensitive variable: a default in the spec, a value a tool echoed into a
// record. Values shorter than 4 bytes are too common to tell.
func RefuseSecrets(lab *spec.Lab, dir string) error {
	var secrets []string
	var names []string
	for name := range lab.Sensitive {
		if v, ok := lab.Variables[name]; ok && v.IsKnown() && !v.IsNull() && v.Type() == cty.String && len(v.AsString()) >= 4 {
			secrets, names = append(secrets, v.AsString()), append(names, name)
		}
	}
	if len(secrets) == 0 {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				rel, _ := filepath.Rel(dir, path)
				return fmt.Errorf("publish: %s would hold the value of the sensitive variable %q: refusing to publish it", rel, names[i])
			}
		}
		return nil
	})
}

// WritePost writes POST.md with the publishing machine's provenance.
func WritePost(dir string, b bundle.Info, info results.RunInfo, recs []results.Record, lock bool) error {
	host, _ := os.Hostname()
	p := bundle.Post{Info: b, Run: info, Groups: results.Group(recs), Host: host, LockFile: lock, Command: b.Reproduce,
		Kernel: readTrimmed("/proc/sys/kernel/osrelease"), LoadAvg: loadAverage()}
	var buf bytes.Buffer
	if err := bundle.WritePost(&buf, p); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, bundle.PostFile), buf.Bytes(), 0o644)
}

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// loadAverage is /proc/loadavg's three load averages ("" elsewhere).
func loadAverage() string {
	f := strings.Fields(readTrimmed("/proc/loadavg"))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// HostNotes are what the lab's back ends, as configured, say a reader of
// its figures must know (providers.HostNoter: libvirt under TCG), each
// after its provider's key. Configure does not dial; a block that does not
// configure says what it can.
func HostNotes(lab *spec.Lab) []string {
	var out []string
	ctx := providers.WithEvalContext(context.Background(), lab.EvalContext())
	for _, key := range slices.Sorted(maps.Keys(lab.Providers)) {
		p, err := providers.New(lab.Providers[key].Type)
		if err != nil {
			continue
		}
		_ = p.Configure(ctx, lab.Providers[key].Body)
		if n, ok := p.(providers.HostNoter); ok {
			for _, note := range n.HostNotes() {
				out = append(out, fmt.Sprintf("provider %q: %s", key, note))
			}
		}
		_ = p.Close(ctx)
	}
	return out
}

// ShellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and "-_./=:,+@%".
func ShellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c)) {
			safe = false
		}
	}
	if safe && !strings.HasPrefix(s, "-") {
		return s
	}
	if strings.HasPrefix(s, "-") {
		s = "./" + s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
