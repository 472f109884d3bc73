package vsphere

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/steps"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestCreateSteps fails each of Create's steps in turn on the simulator
// (a fault vCenter raises, or a spec it cannot meet): the error names the
// VM and the step; until the clone exists Create returns nothing to
// record, after it an Instance that Delete removes. A VM lab does not own
// is refused and left alone.
func TestCreateSteps(t *testing.T) {
	sim := vspheretest.Start(t)
	for i, tc := range []struct {
		step  string
		block string                                 // the provider block, if not configured's
		env   map[string]string                      // GOVC_* variables changed
		edit  func(t *testing.T, m *machine.Machine) // the spec, or the inventory
		fault string                                 // a vSphere method that fails
		// afterClone cancels the create between clone and configure.
		cancel   bool
		want     string
		recorded bool // Create returns an Instance naming the VM
	}{
		{step: "check NIC", edit: func(t *testing.T, m *machine.Machine) { m.NIC.Model = "rtl8139" },
			want: `NIC model "rtl8139" is not one of`},
		{step: "connect", env: map[string]string{"GOVC_URL": "http://127.0.0.1:1/sdk"}, want: "connection refused"},
		{step: "check placement", edit: func(t *testing.T, m *machine.Machine) { m.Template.Source = "" },
			want: "has no source"},
		{step: "find template", edit: func(t *testing.T, m *machine.Machine) { m.Template.Source = "no-such-tmpl" },
			want: "no-such-tmpl"},
		{step: "clear leftover", edit: func(t *testing.T, m *machine.Machine) {
			sim.PlantVM(t, FolderName(m.Owner()), m.Name, "made by hand")
		}, want: "is not this lab's"},
		{step: "clone", fault: "CloneVM_Task", want: "injected CloneVM_Task fault"},
		{step: "configure", fault: "ReconfigVM_Task", want: "reconfigure: ", recorded: true},
		{step: "configure", cancel: true, want: "context canceled", recorded: true},
		{step: "power on", fault: "PowerOnVM_Task", want: "injected PowerOnVM_Task fault", recorded: true},
		{step: "wait for the IP address", block: "datacenter = \"DC0\"\ncluster = \"DC0_C0\"\nnetwork = \"VM Network\"\nip_timeout = \"1s\"\n" +
			"extra_config = { \"SET.guest.ipAddress\" = \"169.254.3.4\" }",
			want: "ip_timeout", recorded: true},
		{step: "", want: "uuid host host_lro", recorded: true}, // record host: what it records
	} {
		i, name := i, tc.step
		if tc.cancel {
			name += " cancelled"
		}
		t.Run(name, func(t *testing.T) {
			labID := fmt.Sprintf("st%02d", i)
			m := testMachine(labID, "p", "server", vspheretest.FreeBSD, "freebsd")
			p := configured(t, sim, "")
			if tc.block != "" || tc.env != nil {
				p = New()
				p.Getenv = func(k string) string {
					if v, ok := tc.env[k]; ok {
						return v
					}
					return sim.Getenv(k)
				}
				block := tc.block
				if block == "" {
					block = baseBlock + "network = \"VM Network\"\n"
				}
				if d := p.Configure(context.Background(), body(t, block)); d.HasErrors() {
					t.Fatal(d)
				}
				defer p.Close(context.Background())
			}
			if tc.edit != nil {
				tc.edit(t, &m)
			}
			if tc.fault != "" {
				t.Cleanup(sim.Fail(tc.fault, "VirtualMachine", "*", 0))
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				afterClone = func(string) error { cancel(); return nil }
				t.Cleanup(func() { afterClone = nil })
			}
			in, err := p.Create(ctx, m)
			if got := in.ID != "" && in.Name == m.Name; got != tc.recorded {
				t.Errorf("returned %+v to record: %v, want %v", in, got, tc.recorded)
			}
			if tc.step == "" {
				var got []string
				for _, k := range []string{"uuid", "host", "host_lro"} {
					if in.Attrs[k] != "" {
						got = append(got, k)
					}
				}
				if err != nil || strings.Join(got, " ") != tc.want {
					t.Errorf("create: %v; recorded %v, want %s", err, got, tc.want)
				}
			} else {
				var se *steps.Error
				if !errors.As(err, &se) || se.Step != tc.step || se.Machine != m.Name || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("create: %v\nwant step %q of %s, saying %q", err, tc.step, m.Name, tc.want)
				}
				if got, want := errors.Is(err, providers.ErrNotOwned), tc.step == "clear leftover"; got != want {
					t.Errorf("refused (ErrNotOwned): %v, want %v", got, want)
				}
				if tc.cancel && !errors.Is(err, context.Canceled) {
					t.Errorf("create: %v, want it to wrap context.Canceled", err)
				}
			}
			if in.ID != "" {
				if err := p.Delete(context.Background(), in); err != nil {
					t.Fatal(err)
				}
			}
			want := 0
			if tc.step == "clear leftover" {
				want = 1 // the VM lab does not own, untouched
			}
			if left := labVMs(sim, labID); len(left) != want {
				t.Errorf("VMs left: %v, want %d", left, want)
			}
		})
	}
}
