package state

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
)

// fullState has every field of the state file set, so that the golden
// file pins the encoding of each (key, order, omitempty).
func fullState() *State {
	at := time.Date(2026, 11, 29, 23, 45, 1, 500, time.UTC)
	owner := machine.Owner{Lab: "vmx", Workspace: "1a2b3c4d"}
	return &State{
		Version: Version, Lineage: "1a2b3c4d-5e6f-4a0b-8c0d-0e0f10111213", Serial: 6,
		LabID: "vmx", Dir: "/home/u/vmx", DirID: "2049:1234",
		Resources: []Resource{
			{Instance: machine.Instance{Address: "pair.fast[1a2b3c].link", Provider: "libvirt", Kind: "link", ID: "net-uuid", Name: "lab-fast",
				Owner: owner, Attrs: map[string]string{"bridge": "virbr9", "mtu": "9000"}},
				ProviderKey: "libvirt.default", Status: Created, Shape: "1a2b3c", CreatedAt: at},
			{Instance: machine.Instance{Address: "pair.fast[1a2b3c].server", Provider: "libvirt", Kind: "machine", ID: "dom-uuid", Name: "lab-fast-s",
				Owner: owner, Endpoint: &machine.Endpoint{Addr: "198.18.0.5", Iface: "enp1s0", Iface2: "enp2s0", CPUs: []int{0, 2},
					SSHHost: "192.168.122.5", SSH: &machine.Login{Port: 2222, User: "root", PrivateKeyFile: "/k", HostKey: "ssh-ed25519 AAAA",
						Agent: true, KnownHostsFile: "/kh", SSHConfig: "/sc", ProxyJump: "jump@bastion:22"},
					TemplateID: "sha256:ab"},
				Attrs: map[string]string{"mac": "52:54:00:00:00:01"}},
				ProviderKey: "libvirt.default", Status: Tainted, Shape: "1a2b3c", CreatedAt: at},
			{Instance: machine.Instance{Address: "pair.fast[1a2b3c].client", Provider: "libvirt", Kind: "machine", Name: "lab-fast-c",
				Owner: owner, Pending: true, Endpoint: &machine.Endpoint{}},
				ProviderKey: "libvirt.default", Status: Pending},
			{Instance: machine.Instance{Address: "pair.bare.link"}, Status: Created},
		},
	}
}

// TestStateFileFormat pins the state file byte for byte: what Save writes
// for a state with every field set, and that Load reads it back unchanged.
// A change here is a state format change (a Version bump and an upgrade).
func TestStateFileFormat(t *testing.T) {
	dir := t.TempDir()
	s := fullState()
	s.Serial-- // Save counts it up
	if err := (Store{Dir: dir}).Save(s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "state.golden")
	golden.Check(t, path, b)

	if err := os.WriteFile(filepath.Join(dir, FileName), mustRead(t, path), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Store{Dir: dir}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if want := fullState(); !reflect.DeepEqual(got, want) {
		t.Errorf("Load(state.golden) =\n%+v\nwant\n%+v", got, want)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
