package houserules

import (
	"cmp"
	"fmt"
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
	// The cap alone hides a trend (issue 36 §5: functions sitting at
	// exactly 100 lines): the distribution shows it with -v.
	all, err := longFunctions(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(distribution(all))
}

// distribution summarises function lengths: how many, the median, the
// 90th percentile (nearest rank) and the five longest with where they are.
func distribution(fns []longFunc) string {
	if len(fns) == 0 {
		return "no functions"
	}
	sorted := slices.SortedFunc(slices.Values(fns), func(a, b longFunc) int {
		return cmp.Or(b.lines-a.lines, strings.Compare(a.pos, b.pos))
	})
	// The p-th percentile by nearest rank: the ceil(p·n/100)-th shortest.
	rank := func(p int) int { return sorted[len(sorted)-(p*len(sorted)+99)/100].lines }
	var top []string
	for _, f := range sorted[:min(5, len(sorted))] {
		top = append(top, fmt.Sprintf("%s %s (%d)", f.pos, f.name, f.lines))
	}
	return fmt.Sprintf("%d functions: median %d lines, 90th percentile %d, longest: %s", len(sorted), rank(50), rank(90), strings.Join(top, ", "))
}

// TestDistribution: the summary's median and 90th percentile are the
// nearest-rank ones, and the longest five come longest first.
func TestDistribution(t *testing.T) {
	fns := func(lines ...int) []longFunc {
		var out []longFunc
		for i, n := range lines {
			out = append(out, longFunc{pos: fmt.Sprintf("f.go:%d", i+1), name: fmt.Sprintf("f%d", i+1), lines: n})
		}
		return out
	}
	for _, tc := range []struct {
		fns  []longFunc
		want string
	}{
		{nil, "no functions"},
		{fns(7), "1 functions: median 7 lines, 90th percentile 7, longest: f.go:1 f1 (7)"},
		{fns(1, 2, 3, 4, 5, 6, 7, 8, 9, 100), "10 functions: median 5 lines, 90th percentile 9, longest: " +
			"f.go:10 f10 (100), f.go:9 f9 (9), f.go:8 f8 (8), f.go:7 f7 (7), f.go:6 f6 (6)"},
		{fns(3, 1, 2), "3 functions: median 2 lines, 90th percentile 3, longest: f.go:1 f1 (3), f.go:3 f3 (2), f.go:2 f2 (1)"},
	} {
		if got := distribution(tc.fns); got != tc.want {
			t.Errorf("distribution(%v) =\n%s\nwant\n%s", tc.fns, got, tc.want)
		}
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
