package operation

import "github.com/lab-bench/lab/internal/state"

// StateView shows what `lab state`'s subcommands found or did.
type StateView interface {
	// List shows the objects the state lists (none: an empty list).
	List(rs []state.Resource) error
	// Show shows one object.
	Show(r *state.Resource) error
	// Removed says that the state no longer lists addrs.
	Removed(addrs []string)
}

// StateList is `lab state list`: the objects the state lists.
func (o *Operation) StateList(view StateView) error {
	st, err := o.StateStore().Load()
	if err != nil {
		return err
	}
	return view.List(st.Resources)
}

// StateShow is `lab state show ADDR`: the object at addr (NotInState's
// error, naming those listed, when the state lists none there).
func (o *Operation) StateShow(addr string, view StateView) error {
	st, err := o.StateStore().Load()
	if err != nil {
		return err
	}
	r, ok := st.Find(addr)
	if !ok {
		return NotInState(st, addr)
	}
	return view.Show(r)
}

// StateRm is `lab state rm ADDR…`: it forgets the objects at addrs under
// the state lock (RemoveFromState) and says so.
func (o *Operation) StateRm(addrs []string, view StateView) error {
	if err := o.RemoveFromState(addrs); err != nil {
		return err
	}
	view.Removed(addrs)
	return nil
}
