package providers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneOwnershipError: every back end refuses another's object with
// *providers.NotOwnedError. A back end's own refusal type is how the bhyve
// back end came to destroy a VM made by hand (issue 31): its error did not
// match providers.ErrNotOwned, so the engine kept the refused machine as a
// pending record and teardown adopted and deleted it. So no file under
// providers/ but owner.go may declare a type named like an ownership
// error, or an Is method that answers for ErrNotOwned.
func TestOneOwnershipError(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == "owner.go" {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if name := n.Name.Name; strings.Contains(strings.ToLower(name), "owned") && strings.HasSuffix(name, "Error") {
					t.Errorf("%s: type %s: refuse with *providers.NotOwnedError, the one ownership error", fset.Position(n.Pos()), name)
				}
			case *ast.FuncDecl:
				if n.Recv != nil && n.Name.Name == "Is" && mentions(n.Body, "ErrNotOwned") {
					t.Errorf("%s: an Is method answering for ErrNotOwned: refuse with *providers.NotOwnedError instead", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mentions reports whether node uses the identifier name.
func mentions(node ast.Node, name string) bool {
	found := false
	ast.Inspect(node, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}
