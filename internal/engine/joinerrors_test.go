package engine

import (
	"errors"
	"io/fs"
	"testing"
)

// joinErrors renders as the engine's teardown always has (one error as it
// is; several counted, one per line), flattens a list joined into another
// and lets errors.Is see every error.
func TestJoinErrors(t *testing.T) {
	a, b, c := errors.New("delete a: gone wrong"), fs.ErrNotExist, errors.New("list p: refused")
	if err := joinErrors(nil, nil); err != nil {
		t.Errorf("nothing joined: %v", err)
	}
	if got := joinErrors(nil, a).Error(); got != "delete a: gone wrong" {
		t.Errorf("one error: %q", got)
	}
	got := joinErrors(joinErrors(a, b), nil, c)
	want := "3 errors:\n  * delete a: gone wrong\n  * file does not exist\n  * list p: refused"
	if got.Error() != want {
		t.Errorf("got %q, want %q", got.Error(), want)
	}
	if !errors.Is(got, fs.ErrNotExist) || !errors.Is(got, c) {
		t.Errorf("errors.Is does not see the joined errors")
	}
}
