package houserules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoLongFunctions enforces MaxLines over the whole module: every
// non-test .go file under the module root, generated files excepted.
func TestNoLongFunctions(t *testing.T) {
	root := moduleRoot(t)
	long, err := longFunctions(root, MaxLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Errorf("%s: %s is %d lines (at most %d)", f.pos, f.name, f.lines, MaxLines)
	}
}

// TestLongFunctionsFindsOne proves the check sees a long function and counts
// its lines from func to closing brace.
func TestLongFunctionsFindsOne(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package p\n\nfunc short() {}\n\nfunc long() {\n")
	for range 99 {
		b.WriteString("\t_ = 1\n")
	}
	b.WriteString("}\n") // func line + 99 + brace = 101 lines
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// A test file's long function is not counted.
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(strings.Replace(b.String(), "long", "longTest", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	long, err := longFunctions(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(long) != 1 || long[0].name != "long" || long[0].lines != 101 {
		t.Fatalf("got %+v, want one function long of 101 lines", long)
	}
}

type longFunc struct {
	pos   string
	name  string
	lines int
}

// longFunctions returns every function declared in a non-test, non-generated
// .go file under root that is longer than max lines.
func longFunctions(root string, max int) ([]longFunc, error) {
	var out []longFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start := fset.Position(fn.Pos())
			n := fset.Position(fn.End()).Line - start.Line + 1
			if n > max {
				rel, _ := filepath.Rel(root, start.Filename)
				out = append(out, longFunc{pos: rel + ":" + strconv.Itoa(start.Line), name: funcName(fn), lines: n})
			}
		}
		return nil
	})
	return out, err
}

// funcName is fn's name, with its receiver's type for a method (T.m).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		}
		break
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// moduleRoot is the directory holding go.mod, found upward from the test's
// working directory (the package directory).
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
