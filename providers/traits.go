package providers

// HostKernelSharer is implemented, optionally, by back ends whose guests
// share this host's kernel (the local back end's network namespaces): the
// spec then refuses a sysctl that is not namespaced (net.*), which would
// change the host's own value. It is a property of the type, known
// before Configure.
type HostKernelSharer interface {
	SharesHostKernel() bool
}

// SharesHostKernel reports whether the guests of provider type typ share
// this host's kernel (HostKernelSharer); false for an unknown type. The
// spec loader is given it (spec.Options.SharesHostKernel), so that no
// back end's name is known outside providers/.
func SharesHostKernel(typ string) bool {
	p, err := New(typ)
	if err != nil {
		return false
	}
	s, ok := p.(HostKernelSharer)
	return ok && s.SharesHostKernel()
}

// HostNoter is implemented, optionally, by back ends whose configuration
// changes what a run's figures mean (libvirt's accel = "tcg": emulated
// CPUs). A published bundle's host notes carry each note, after the
// provider's key. Called after Configure; it must not dial.
type HostNoter interface {
	HostNotes() []string
}
