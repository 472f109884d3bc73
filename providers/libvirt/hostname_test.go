package libvirt

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHostnameCmd: the command that names a guest parses in a POSIX sh
// (sh -n), quotes whatever the name holds, and cuts it to the 63 bytes a
// hostname may have (the real run is TestKVM/two_NICs, which reads
// `hostname` back from each guest).
func TestHostnameCmd(t *testing.T) {
	long := strings.Repeat("a", 70)
	for _, tt := range []struct{ name, want string }{
		{"lab-kvm-2nic-s", "'lab-kvm-2nic-s'"},
		{"it's", `'it'\''s'`},
		{long, "'" + long[:63] + "'"},
	} {
		cmd := hostnameCmd(tt.name)
		if strings.Count(cmd, tt.want) != 4 || strings.Contains(cmd, long[:64]) {
			t.Errorf("%q: %s lacks %s four times (hostname, sysrc, /etc/hostname, hostname)", tt.name, cmd, tt.want)
		}
		if out, err := exec.Command("sh", "-n", "-c", cmd).CombinedOutput(); err != nil {
			t.Errorf("%q: sh -n: %v\n%s\n%s", tt.name, err, out, cmd)
		}
	}
}

// TestHostnameCmdText: the command built from the registered OSes is the
// one lab sent before they registered themselves, word for word.
func TestHostnameCmdText(t *testing.T) {
	const want = `case $(uname -s) in FreeBSD) hostname 'g' && sysrc -q hostname='g' >/dev/null;; ` +
		`*) printf '%s\n' 'g' >/etc/hostname && hostname 'g';; esac`
	if got := hostnameCmd("g"); got != want {
		t.Errorf("hostnameCmd = %s\nwant          %s", got, want)
	}
}
