package guest

import (
	"strings"
	"testing"
)

// TestRegistry: the default OS answers for "" and, through For, for a name
// nothing registered; NewOS names the known OSes, the default first; a
// second registration under a name is refused.
func TestRegistry(t *testing.T) {
	saved := drivers
	defer func() { drivers = saved }()
	drivers = map[string]Driver{}
	Register(Driver{Name: "zeta", Kernel: "Zeta", Default: true, New: func() OS { return nil }})
	Register(Driver{Name: "alpha", Kernel: "Alpha", New: func() OS { return nil }})

	if d, ok := Lookup(""); !ok || d.Name != "zeta" {
		t.Errorf(`Lookup("") = %q, %v; want the default, zeta`, d.Name, ok)
	}
	if _, ok := Lookup("beta"); ok {
		t.Error(`Lookup("beta") found an OS nobody registered`)
	}
	if d := For("beta"); d.Name != "zeta" {
		t.Errorf(`For("beta") = %q, want the default`, d.Name)
	}
	if d := For("alpha"); d.Kernel != "Alpha" {
		t.Errorf(`For("alpha") = %+v`, d)
	}
	if Registered("") || !Registered("alpha") {
		t.Error(`Registered: "" must not count, alpha must`)
	}
	if got := strings.Join(Names(), ","); got != "zeta,alpha" {
		t.Errorf("Names = %s, want the default first", got)
	}
	if _, err := NewOS("beta"); err == nil || err.Error() != `no driver for guest os "beta" yet (known: zeta, alpha)` {
		t.Errorf("NewOS(beta) = %v", err)
	}
	for _, d := range []Driver{{Name: "alpha"}, {Name: "gamma", Default: true}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", d)
				}
			}()
			Register(d)
		}()
	}
}

// TestForWithoutDefault: a program without a guest/<os> import fails
// with a message saying which import it lacks.
func TestForWithoutDefault(t *testing.T) {
	saved := drivers
	defer func() { drivers = saved }()
	drivers = map[string]Driver{}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "guest/linux") {
			t.Errorf("For with nothing registered: %v", r)
		}
	}()
	For("linux")
}
