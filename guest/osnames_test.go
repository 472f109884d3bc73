package guest

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

// maxOSNameUses is how many places outside guest/ and internal/spec/ may still
// compare an OS name (issue 21: at most 2). Everything else asks the
// registered guest.Driver.
const maxOSNameUses = 2

// osNames are the names a guest OS goes by in templates and in uname -s,
// compared without regard to case: those lab drives and the next ones.
var osNames = map[string]bool{"linux": true, "freebsd": true, "openbsd": true, "netbsd": true,
	"dragonfly": true, "illumos": true, "solaris": true, "darwin": true, "windows": true}

// TestOSNamesStayInGuest: no non-test code outside guest/ and internal/spec/
// compares an OS name (== or !=, a switch case, a map key or index), so that a new
// guest OS is its own package and one import, not a hunt through the
// back ends. It counts the literal names and the constants spelling them
// (bench.FreeBSD). LAB_OSNAMES_ROOT measures another checkout.
func TestOSNamesStayInGuest(t *testing.T) {
	root := os.Getenv("LAB_OSNAMES_ROOT")
	if root == "" {
		root = ".."
	}
	uses, err := osNameUses(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range uses {
		t.Log(u)
	}
	if len(uses) > maxOSNameUses {
		t.Errorf("%d OS-name comparisons outside guest/ and internal/spec/, at most %d: ask guest.For(os) instead:\n%s",
			len(uses), maxOSNameUses, strings.Join(uses, "\n"))
	}
}

// osNameUses lists "file:line: what" for each OS-name comparison in the
// non-test Go files under root, outside guest/ and internal/spec/.
func osNameUses(root string) ([]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case "guest", "internal/spec", ".git", "testdata":
				return filepath.SkipDir
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	consts := osNameConsts(files)
	isName := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(e.Value)
			return e.Kind == token.STRING && err == nil && osNames[strings.ToLower(s)]
		case *ast.Ident:
			return consts[e.Name]
		case *ast.SelectorExpr:
			return consts[e.Sel.Name]
		}
		return false
	}
	var uses []string
	add := func(n ast.Node, what string) {
		p := fset.Position(n.Pos())
		rel, _ := filepath.Rel(root, p.Filename)
		uses = append(uses, rel+":"+strconv.Itoa(p.Line)+": "+what)
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isName(n.X) || isName(n.Y)) {
					add(n, "compares an OS name")
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isName(e) {
						add(e, "switch case on an OS name")
					}
				}
			case *ast.KeyValueExpr:
				if isName(n.Key) {
					add(n, "OS name as a key")
				}
			case *ast.IndexExpr:
				if isName(n.Index) {
					add(n, "looks up by an OS name")
				}
			}
			return true
		})
	}
	return uses, nil
}

// osNameConsts are the constants declared with an OS name as their value
// (bench.Linux = "linux"), which compare like the literal.
func osNameConsts(files []*ast.File) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING && i < len(vs.Names) {
						if s, err := strconv.Unquote(lit.Value); err == nil && osNames[strings.ToLower(s)] {
							out[vs.Names[i].Name] = true
						}
					}
				}
			}
		}
	}
	return out
}

// TestOSNameUsesFinds: the scan sees each shape of comparison, and none in
// guest/, spec/ or a test file.
func TestOSNameUsesFinds(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p/p.go", `package p
const BSD = "freebsd"
var m = map[string]int{"linux": 1}
func f(os string) int {
	if os == "Linux" || os != BSD { return m["openbsd"] }
	switch os { case "freebsd", "x": }
	return 0
}`)
	write("guest/g.go", `package guest
func f(os string) bool { return os == "linux" }`)
	write("internal/spec/s.go", `package spec
func f(os string) bool { return os == "linux" }`)
	write("p/p_test.go", `package p
func g(os string) bool { return os == "linux" }`)
	uses, err := osNameUses(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(uses) != 5 {
		t.Errorf("found %d, want 5 (key, ==, != constant, index, case):\n%s", len(uses), strings.Join(uses, "\n"))
	}
}
