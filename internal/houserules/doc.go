// Package houserules holds, as tests, the rules of the house a program can
// check over the whole module's non-test code:
//
//   - no function over MaxLines lines (funclen_test.go);
//   - one way to join errors: errors.Join, never
//     github.com/hashicorp/go-multierror (joinerrors_test.go);
//   - no back end's name compared outside providers/ (backendnames_test.go).
package houserules

// MaxLines is the longest a function of the module's non-test code may be,
// counted from the line of its func keyword to the line of its closing
// brace (a function literal counts within the function that holds it).
const MaxLines = 100
