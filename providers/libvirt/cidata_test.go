package libvirt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
)

func TestSeedFiles(t *testing.T) {
	nics := []seedNIC{{"mgmt", "52:54:00:AB:CD:EF"}, {"link", "52:54:00:12:34:56"}}
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDx lab-test"
	tests := []struct {
		name  string
		login machine.Login
		ci    machine.CloudInit
	}{
		{"root", machine.Login{User: "root"}, machine.CloudInit{Packages: []string{"iperf3", "ethtool=1:6.1-1"}}},
		{"user", machine.Login{User: "debian"}, machine.CloudInit{}},
		{"user-data", machine.Login{User: "root"}, machine.CloudInit{UserData: "#cloud-config\nruncmd:\n  - [touch, /run/user-part]\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := makeSeed("kvm-cloud-p-s", "lab-kvm-cloud-p-s-0a1b", tc.login, key, tc.ci, nics)
			if err != nil {
				t.Fatal(err)
			}
			got := "== meta-data\n" + f.MetaData + "== user-data\n" + f.UserData + "== network-config\n" + f.NetworkConfig
			// The MIME boundary is random: fix it for the comparison.
			if i := strings.Index(got, `boundary="`); i >= 0 {
				b := got[i+len(`boundary="`):]
				b = b[:strings.IndexByte(b, '"')]
				got = strings.ReplaceAll(got, b, "BOUNDARY")
			}
			golden.Check(t, filepath.Join("testdata", "seed-"+tc.name+".golden"), got)
		})
	}
}

// The ISO carries the three files under their exact names and the label
// cloud-init looks for; read back with the system's own ISO tools
// (isoinfo from genisoimage, or 7z), which must be installed to check.
func TestSeedISO(t *testing.T) {
	f := seedFiles{MetaData: "instance-id: \"i-1\"\nlocal-hostname: \"g1\"\n", UserData: "#cloud-config\n", NetworkConfig: "version: 2\n"}
	iso, err := seedISO(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seed.iso")
	if err := os.WriteFile(path, iso, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("isoinfo"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("isoinfo (genisoimage) not installed: .ci/run installs it")
		}
		t.Skip("isoinfo (genisoimage) not installed")
	}
	out, err := exec.Command("isoinfo", "-d", "-i", path).CombinedOutput()
	if err != nil || !strings.Contains(strings.ToLower(string(out)), "volume id: cidata") || !strings.Contains(string(out), "Rock Ridge") {
		t.Fatalf("isoinfo -d: %v\n%s", err, out)
	}
	for name, want := range map[string]string{"meta-data": f.MetaData, "user-data": f.UserData, "network-config": f.NetworkConfig} {
		got, err := exec.Command("isoinfo", "-R", "-i", path, "-x", "/"+name).Output()
		if err != nil || string(got) != want {
			t.Errorf("%s: %q (%v), want %q", name, got, err, want)
		}
	}
}
