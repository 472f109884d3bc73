package libvirt

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/machine"
)

func TestParseCPUSet(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"3", "3", ""},
		{"0-3", "0-3", ""},
		{"0-3,^2", "0-1,3", ""},
		{"4, 0 ,2-3", "0,2-4", ""},
		{"1,1,1", "1", ""},
		{"", "", "an empty element"},
		{"0,,1", "", "an empty element"},
		{"a", "", `"a" is not a CPU number`},
		{"-1", "", `"" is not a CPU number`},
		{"3-1", "", "runs backwards"},
		{"^1-2", "", "an exclusion is one CPU"},
		{"2,^2", "", "no CPU left"},
		{"9000", "", "beyond 8191"},
	}
	for _, tc := range tests {
		got, err := parseCPUSet(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || formatCPUs(got) != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestVCPUPins(t *testing.T) {
	two := cpuSet{CPUs: []int{2, 5}}
	if got := strings.Join(vcpuPins(two, 2), " "); got != "2 5" {
		t.Errorf("2 CPUs for 2 vCPUs: %s, want one each", got)
	}
	if got := strings.Join(vcpuPins(two, 3), " "); got != "2,5 2,5 2,5" {
		t.Errorf("2 CPUs for 3 vCPUs: %s, want the set shared", got)
	}
}

func configure(t *testing.T, src string) (*Provider, hcl.Diagnostics) {
	t.Helper()
	f, d := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	p := New()
	return p, p.Configure(context.Background(), f.Body)
}

// Bad sets and machine types are diagnostics on their spec line.
func TestConfigurePinAndMachine(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"good", "machine = \"q35\"\ncpu_pin {\n  server = \"0\"\n  client = 1\n  emulator = \"0-1\"\n}\n", ""},
		{"bad set", "cpu_pin {\n  server = \"0-\"\n}\n", `lab.hcl:2,12-16: Invalid cpuset; cpu_pin server = "0-": "" is not a CPU number.`},
		{"backwards", "cpu_pin {\n  client = \"1\"\n  emulator = \"3-1\"\n}\n", `lab.hcl:3,14-19: Invalid cpuset; cpu_pin emulator = "3-1": range 3-1 runs backwards.`},
		{"not a string", "cpu_pin {\n  server = [0]\n}\n", `lab.hcl:2,12-15: Invalid cpuset`},
		{"unknown role", "cpu_pin {\n  guest = \"0\"\n}\n", `lab.hcl:2,3-8: Unsupported argument`},
		{"machine", "machine = \"q53\"\n", `machine = "q53" is not a QEMU x86 machine type`},
		{"versioned machine", "machine = \"pc-q35-8.2\"\n", ""},
		{"management lab", "management = \"lab\"\n", ""},
		{"management existing", "management = \"default\"\nnetwork = \"bench\"\n", ""},
		{"management lab, network set", "management = \"lab\"\nnetwork = \"bench\"\n", `management = "lab" makes a management network`},
		{"management is the link", "management = \"bench\"\nnetwork = \"bench\"\n", `management and network both name "bench"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, d := configure(t, tc.src)
			if tc.want == "" {
				if d.HasErrors() {
					t.Fatal(d)
				}
				return
			}
			if !d.HasErrors() || !strings.Contains(d.Error(), tc.want) {
				t.Fatalf("diagnostics %q, want %q", d.Error(), tc.want)
			}
			_ = p
		})
	}
}

// A CPU the host lacks is refused at the attribute that asks for it.
func TestPinBeyondHost(t *testing.T) {
	p, d := configure(t, "uri = \"qemu:///system\"\ncpu_pin {\n  server = \"0\"\n  client = \"1-2\"\n}\n")
	if d.HasErrors() {
		t.Fatal(d)
	}
	if err := p.pin.beyondHost(4, p.cfg.URI); err != nil {
		t.Errorf("4 host CPUs: %v", err)
	}
	err := p.pin.beyondHost(2, p.cfg.URI)
	const want = `lab.hcl:4,12-17: cpu_pin client = "1-2" asks for CPU 2, but the libvirt host at qemu:///system has 2 CPUs (0-1)`
	if err == nil || err.Error() != want {
		t.Errorf("2 host CPUs: %v, want %s", err, want)
	}
}

// With cpu_pin {}, plan asks the host; a silent daemon fails the plan
// within call_timeout, and no daemon at all leaves the plan offline.
func TestCheckTemplateDials(t *testing.T) {
	sock := silentDaemon(t)
	// accel = "tcg": the KVM probe (accel_test.go) is not what is tested.
	p, d := configure(t, "uri = \"qemu+unix:///system?socket="+sock+"\"\naccel = \"tcg\"\ncall_timeout = \"300ms\"\ncpu_pin {\n  server = \"0\"\n}\n")
	if d.HasErrors() {
		t.Fatal(d)
	}
	err := p.CheckTemplate(context.Background(), testMachine())
	if err == nil || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), sock) {
		t.Errorf("silent daemon: %v", err)
	}
	p, _ = configure(t, "uri = \"qemu+unix:///system?socket="+t.TempDir()+"/none\"\naccel = \"tcg\"\ncpu_pin {\n  server = \"0\"\n}\n")
	if err := p.CheckTemplate(context.Background(), testMachine()); err != nil {
		t.Errorf("no daemon: %v, want the check left to apply", err)
	}
	p, _ = configure(t, "uri = \"qemu+unix:///system?socket="+sock+"\"\naccel = \"tcg\"\ncall_timeout = \"300ms\"\n")
	if err := p.CheckTemplate(context.Background(), testMachine()); err != nil {
		t.Errorf("no cpu_pin: %v, want no dial", err)
	}
}

// TestHostSettingsNICDevice: a result records which emulated device the
// benchmark NIC was, and that QEMU's vmxnet3 is not ESXi's (issue 33).
func TestHostSettingsNICDevice(t *testing.T) {
	p := New()
	for model, want := range map[string]string{"vmxnet3": "nic_device=qemu-vmxnet3-not-ESXi", "virtio": "nic_device=qemu-virtio", "e1000e": "nic_device=qemu-e1000e"} {
		in := machine.Instance{Attrs: map[string]string{attrMachine: "pc", attrNICDevice: nicDevice(model)}}
		if got := p.HostSettings(in); got != "machine=pc "+want {
			t.Errorf("%s: %q, want %q", model, got, "machine=pc "+want)
		}
	}
}
