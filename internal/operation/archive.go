package operation

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/lab-bench/lab/internal/archive"
)

// archiveTimeout bounds an apply's archive write: a database that does
// not answer must not hold the apply (its results are in results/).
const archiveTimeout = 60 * time.Second

// ArchiveLocation is where runs are archived: LAB_ARCHIVE (which
// `-archive URL` sets), else the default SQLite file; "" when
// LAB_ARCHIVE=off.
func (o *Operation) ArchiveLocation() string {
	loc := EnvValue(o.Env, archive.EnvVar)
	switch loc {
	case archive.Off:
		return ""
	case "":
		return archive.DefaultPath(func(k string) string { return EnvValue(o.Env, k) })
	}
	return loc
}

// archiveRun stores the run in runDir in the archive after an apply. A
// failure is a warning, never the apply's error: the run is in results/,
// and `lab archive push` sends it later.
func (o *Operation) archiveRun(runDir string) {
	loc := o.ArchiveLocation()
	if loc == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), archiveTimeout)
	defer cancel()
	if _, err := o.importRuns(ctx, loc, runDir); err != nil {
		fmt.Fprintf(o.Stderr, "Warning: the archive write failed: %v\nThe run is in %s; `lab archive push` sends it to the archive later.\n",
			err, DisplayPath(o.Dir, runDir))
	}
}

// importRuns stores every run below dirs in the archive at loc; it
// returns how many records were new.
func (o *Operation) importRuns(ctx context.Context, loc string, dirs ...string) (int, error) {
	runs, err := archive.FindRuns(dirs...)
	if err != nil {
		return 0, err
	}
	s, err := archive.Open(ctx, loc)
	if err != nil {
		return 0, err
	}
	defer func() { _ = s.Close() }()
	added := 0
	for _, dir := range runs {
		run, err := archive.ReadRun(dir)
		if err != nil {
			return added, err
		}
		n, err := s.Put(ctx, run)
		if err != nil {
			return added, err
		}
		added += n
	}
	return added, nil
}

// Archive is `lab archive import [DIR…]` (existing results/ directories
// and pinned bundles; default: this lab's results/) and `lab archive
// push` (this lab's runs the archive missed). Both store only what the
// archive does not have: running them again is a no-op.
func (o *Operation) Archive(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("archive", flag.ContinueOnError)
	fs.SetOutput(o.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(o.Stderr, "Usage: lab archive import [-archive URL] [DIR…] | lab archive push [-archive URL]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	loc := fs.String("archive", "", "the archive: a postgres:// `URL` or a SQLite file (default: $LAB_ARCHIVE, else "+archive.DefaultPath(func(string) string { return "" })+")")
	if len(args) == 0 || (args[0] != "import" && args[0] != "push") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		fs.Usage()
		return errors.New("archive needs a subcommand: import or push")
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *loc == "" {
		*loc = o.ArchiveLocation()
	}
	if *loc == "" {
		return fmt.Errorf("the archive is off (%s=%s): name one with -archive", archive.EnvVar, archive.Off)
	}
	dirs := fs.Args()
	if args[0] == "push" || len(dirs) == 0 {
		if args[0] == "push" && len(dirs) > 0 {
			return errors.New("archive push takes no directory: it sends this lab's results/ (use archive import DIR…)")
		}
		dirs = []string{o.ResultsDir()}
	}
	added, err := o.importRuns(context.Background(), *loc, dirs...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Archived %d new records in %s.\n", added, archive.Redacted(*loc))
	return nil
}
