package providers

import (
	"errors"
	"fmt"

	"github.com/lab-bench/lab/machine"
)

// ErrNotOwned is what every refusal to touch an object that is not the
// lab's matches (errors.Is): an object with the name lab would give it that
// does not carry the owner's tag. The engine records nothing for a create
// refused this way — the object is not lab's to delete, ever.
var ErrNotOwned = errors.New("not this lab's")

// NotOwnedError names an object lab refuses to touch and the tag it carries
// (empty: none).
type NotOwnedError struct {
	Kind, Name, Tag string
	Owner           machine.Owner
}

func (e *NotOwnedError) Error() string {
	tag := e.Tag
	if tag == "" {
		tag = "no lab tag"
	}
	return fmt.Sprintf("%s %s is not this lab's (lab %q, workspace %s): it carries %q; lab leaves it alone — remove it by hand if it is a leftover",
		e.Kind, e.Name, e.Owner.Lab, e.Owner.Workspace, tag)
}

// Is makes errors.Is(err, ErrNotOwned) true.
func (e *NotOwnedError) Is(target error) bool { return target == ErrNotOwned }
