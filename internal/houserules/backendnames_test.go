package houserules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoBackEndNamesCompared keeps docs/PROVIDERS.md's promise that nothing
// outside providers/ changes for a new back end: no non-test code outside
// providers/ compares a value with a back end's name ("libvirt" == t, a
// case "local":, a map keyed by one, slices.Contains(…, "hosts")). What
// differs by back end, the back end declares (Capabilities,
// HostKernelSharer, HostNoter).
func TestNoBackEndNamesCompared(t *testing.T) {
	root := moduleRoot(t)
	names := backEndNames(t, root)
	if len(names) < 5 {
		t.Fatalf("found back ends %q under providers/: fewer than lab has", names)
	}
	found, err := backEndComparisons(root, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: compares with the back end name %s: ask the back end (a capability in providers/) instead", f.pos, f.name)
	}
}

// TestBackEndComparisonsFound proves the check sees each form of comparison
// and leaves a name in a message, providers/ and test files alone.
func TestBackEndComparisonsFound(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "slices"

var byType = map[string]bool{"local": true}

func f(typ string, all []string) string {
	if typ == "libvirt" || "vsphere" != typ || slices.Contains(all, "hosts") {
		return ""
	}
	switch typ {
	case "bhyve":
	}
	return "the local provider's guests" // a message: not a comparison
}
`
	for _, f := range []string{"p/p.go", "p/p_test.go", "providers/x/x.go"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found, err := backEndComparisons(dir, []string{"bhyve", "hosts", "libvirt", "local", "vsphere"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.pos+" "+f.name)
	}
	want := []string{`p/p.go:5 "local"`, `p/p.go:8 "libvirt"`, `p/p.go:8 "vsphere"`, `p/p.go:8 "hosts"`, `p/p.go:12 "bhyve"`}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// backEndNames are the back ends under providers/: each directory whose
// code registers a provider type (its name is the directory's).
func backEndNames(t *testing.T, root string) []string {
	dirs, err := filepath.Glob(filepath.Join(root, "providers", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := filepath.Base(filepath.Dir(f))
		if !strings.HasSuffix(f, "_test.go") && strings.Contains(string(b), "providers.Register(") && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

type comparison struct{ pos, name string }

// backEndComparisons finds, in non-test .go files under root outside
// providers/, every string literal naming a back end that is compared: an
// operand of == or !=, a case of a switch, a map literal's key, an
// argument of slices.Contains or strings.EqualFold.
func backEndComparisons(root string, names []string) ([]comparison, error) {
	var out []comparison
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel == "providers" || path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		check := func(e ast.Expr) {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(names, s) {
				out = append(out, comparison{pos: filepath.ToSlash(rel) + ":" + strconv.Itoa(fset.Position(lit.Pos()).Line), name: lit.Value})
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					check(n.X)
					check(n.Y)
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					check(e)
				}
			case *ast.CompositeLit:
				if _, isMap := n.Type.(*ast.MapType); isMap {
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							check(kv.Key)
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Contains" || sel.Sel.Name == "EqualFold") {
					for _, a := range n.Args {
						check(a)
					}
				}
			}
			return true
		})
		return nil
	})
	return out, err
}
