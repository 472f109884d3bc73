package houserules

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// multierror is the error-joining library the tree chose against: the
// standard library's errors.Join is the one way (issue 21 §6).
const multierror = "github.com/hashicorp/go-multierror"

// TestOneWayToJoinErrors fails naming every Go file, tests included, that
// imports go-multierror.
func TestOneWayToJoinErrors(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == multierror {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s imports %s: join errors with errors.Join", rel, multierror)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
