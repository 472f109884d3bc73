package operation

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// FmtFiles lists the files to format: named files as they are, and in
// named directories the *.hcl and *.labvars files (hidden ones, such as
// .lab.lock.hcl, and hidden directories left out). Relative paths are
// relative to the lab directory.
func FmtFiles(dir string, targets []string, recursive bool) ([]string, error) {
	var out []string
	for _, t := range targets {
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		fi, err := os.Stat(t)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, t)
			continue
		}
		err = filepath.WalkDir(t, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			hidden := strings.HasPrefix(d.Name(), ".") && path != t
			switch {
			case d.IsDir() && (hidden || path != t && !recursive):
				return filepath.SkipDir
			case !d.IsDir() && !hidden && isSpecFile(d.Name()):
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func isSpecFile(name string) bool {
	return strings.HasSuffix(name, ".hcl") || strings.HasSuffix(name, ".labvars")
}

// FormatSource checks src's syntax and returns it formatted.
func FormatSource(src []byte, name string, sources map[string]*hcl.File) ([]byte, hcl.Diagnostics) {
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if f != nil {
		sources[name] = f
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
}
