package operation

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/providers"
)

// CopyBundleSpec copies what a spec needs from the bundle in dir into
// work, saying on out in one line what it left out, and returns the
// -var-file list a load of it takes: the bundle's variables file first
// (absolute: apply reads a relative -var-file from its lab directory),
// then userFiles, which win.
func CopyBundleSpec(work, dir string, info bundle.Info, userFiles []string, out io.Writer) ([]string, error) {
	ignored, err := bundle.CopySpec(work, dir, info)
	if err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	if len(ignored) > 0 {
		fmt.Fprintf(out, "Ignored in the bundle's %s/ (a spec needs only *.hcl, %s and its variables file): %s\n",
			bundle.SpecDir, lockfile.FileName, QuoteNames(ignored))
	}
	if info.VarFile == "" {
		return userFiles, nil
	}
	path, err := filepath.Abs(filepath.Join(work, info.VarFile))
	if err != nil {
		return nil, err
	}
	return append([]string{path}, userFiles...), nil
}

// QuoteNames joins names with ", ", quoting (%q) any that holds a
// character a terminal could act on, a space or a comma.
func QuoteNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if strconv.Quote(n) != `"`+n+`"` || strings.ContainsAny(n, " ,") {
			out[i] = strconv.Quote(n)
		}
	}
	return strings.Join(out, ", ")
}

// ReachesLine is what apply prints before asking to apply a bundle's spec:
// where its providers will connect (Reaches), on a line of its own.
func ReachesLine(lab *spec.Lab, provs map[string]providers.Provider) string {
	return "\nThis bundle will connect to: " + strings.Join(Reaches(lab, provs), ", ") + ".\n"
}
