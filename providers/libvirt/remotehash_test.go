package libvirt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

const testSum = "0b5e1d06a1f1c9a1c6de2e1a2b0f7f0f4bd8f3c55f1c7b3a1e2d9f8c7b6a5e41"

// TestParseHashReply: the replies of coreutils' sha256sum (text and
// binary mode, and the backslash-led line it prints for a name holding a
// backslash or newline: src/digest.c, output_file) and of FreeBSD's
// `sha256 -q` (the digest alone, md5(1)) give the digest; anything else
// is refused.
func TestParseHashReply(t *testing.T) {
	for _, tc := range []struct {
		reply, want string // want "" for refused
	}{
		{testSum + "  /var/lib/libvirt/images/base.qcow2\n", testSum},
		{testSum + " */var/lib/libvirt/images/base.qcow2\n", testSum},
		{`\` + testSum + `  /var/lib/libvirt/images/a\\b.qcow2` + "\n", testSum},
		{testSum + "\n", testSum},
		{strings.ToUpper(testSum) + "\n", testSum},
		{"", ""},
		{"sha256sum: /var/lib/libvirt/images/base.qcow2: Permission denied\n", ""},
		{testSum[:62] + "  /x\n", ""},
	} {
		got, err := parseHashReply(tc.reply)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("parseHashReply(%q) = %q, %v; want %q", tc.reply, got, err, tc.want)
		}
	}
}

// remoteProvider is a provider for qemu+ssh:// to s, logging in with its
// client key and pinning its host key.
func remoteProvider(t *testing.T, host string, port int, keyFile, hostKey string) *Provider {
	t.Helper()
	p, d := configure(t, "uri = \"qemu+ssh://root@"+host+":"+strconv.Itoa(port)+"/system\"\nprivate_key_file = \""+keyFile+"\"\nhost_key = \""+hostKey+"\"\n")
	if d.HasErrors() {
		t.Fatal(d)
	}
	return p
}

// TestHashOverSSHScripted: against an in-process SSH server playing a
// Linux and a FreeBSD host, lab asks `uname -s`, then runs that OS's
// tool on the volume's path and reads its digest; a tool that fails and
// an empty file's digest for a volume that has bytes are errors (the
// download then decides).
func TestHashOverSSHScripted(t *testing.T) {
	const path = "/var/lib/libvirt/images/base.qcow2"
	for _, tc := range []struct {
		name  string
		rules []sshtest.Rule
		size  uint64
		want  string // "" for an error
		cmd   string // the hash command sent
	}{
		{"Linux: coreutils sha256sum", []sshtest.Rule{{Match: `^uname -s$`, Stdout: "Linux\n"}, {Match: `^sha256sum -- ` + path + `$`, Stdout: testSum + "  " + path + "\n"}}, 1 << 20, testSum, "sha256sum -- " + path},
		{"FreeBSD: sha256 -q", []sshtest.Rule{{Match: `^uname -s$`, Stdout: "FreeBSD\n"}, {Match: `^sha256 -q -- ` + path + `$`, Stdout: testSum + "\n"}}, 1 << 20, testSum, "sha256 -q -- " + path},
		{"unreadable", []sshtest.Rule{{Match: `^uname -s$`, Stdout: "Linux\n"}, {Match: `^sha256sum`, Stderr: "sha256sum: " + path + ": Permission denied\n", Exit: 1}}, 1 << 20, "", "sha256sum -- " + path},
		{"empty digest of a volume with bytes", []sshtest.Rule{{Match: `^uname -s$`, Stdout: "Linux\n"}, {Match: `^sha256sum`, Stdout: sha256Empty + "  " + path + "\n"}}, 1 << 20, "", "sha256sum -- " + path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sshtest.NewServer(t, sshtest.NewScript(tc.rules...).Handle)
			p := remoteProvider(t, s.Host(), s.Port(), s.ClientKeyFile(), s.HostKey())
			got, err := p.hashOverSSH(context.Background(), path, tc.size)
			if got != tc.want || (tc.want == "") != (err != nil) {
				t.Errorf("hashOverSSH = %q, %v; want %q", got, err, tc.want)
			}
			if cmds := s.Commands(); len(cmds) != 2 || cmds[0] != "uname -s" || cmds[1] != tc.cmd {
				t.Errorf("commands %q, want uname -s and %q", cmds, tc.cmd)
			}
		})
	}
}

// TestHashOverSSHRealSSHD: through a real OpenSSH sshd on this machine,
// the host's own coreutils sha256sum hashes a file whose name holds a
// backslash (its reply then starts with one) to the digest Go computes.
func TestHashOverSSHRealSSHD(t *testing.T) {
	port, key, hostKey := sshtest.StartSSHD(t, "", "127.0.0.1")
	path := filepath.Join(t.TempDir(), `base\x.qcow2`)
	data := []byte(strings.Repeat("lab template volume\n", 50000))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	p := remoteProvider(t, "127.0.0.1", port, key, hostKey)
	got, err := p.hashOverSSH(context.Background(), path, uint64(len(data)))
	want := sha256.Sum256(data)
	if err != nil || got != hex.EncodeToString(want[:]) {
		t.Errorf("hashOverSSH = %q, %v; want %x", got, err, want)
	}
}

// TestTemplateIDOnSSHHost: for a qemu+ssh:// URI, TemplateID looks the
// volume's path up in libvirtd (a daemon on a pipe) and hashes it on the
// host over SSH (a scripted Linux host): the download is never asked
// for. When the host's tool cannot read the file, the download is tried.
func TestTemplateIDOnSSHHost(t *testing.T) {
	const path = "/var/lib/libvirt/images/base.qcow2"
	for _, tc := range []struct {
		name         string
		hash         sshtest.Rule
		wantID       string // "" for an error
		wantDownload bool
	}{
		{"hashed on the host", sshtest.Rule{Match: `^sha256sum -- ` + path + `$`, Stdout: testSum + "  " + path + "\n"}, "sha256:" + testSum, false},
		{"unreadable there: downloaded", sshtest.Rule{Match: `^sha256sum`, Stderr: "sha256sum: " + path + ": Permission denied\n", Exit: 1}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sshtest.NewServer(t, sshtest.NewScript(sshtest.Rule{Match: `^uname -s$`, Stdout: "Linux\n"}, tc.hash).Handle)
			p, d := configure(t, "uri = \"qemu+ssh://root@"+s.Host()+":"+strconv.Itoa(s.Port())+"/system\"\nprivate_key_file = \""+s.ClientKeyFile()+
				"\"\nhost_key = \""+s.HostKey()+"\"\npool = \"lab\"\naccel = \"tcg\"\ncall_timeout = \"5s\"\n")
			if d.HasErrors() {
				t.Fatal(d)
			}
			daemon := &poolDaemon{state: uint32(golibvirt.StoragePoolRunning), volPath: path, volSize: 1 << 20, calls: make(chan uint32, 16)}
			p.dial = func(u *url.URL, timeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
				return dialLibvirt(daemon, u, timeout)
			}
			id, err := p.TemplateID(context.Background(), testMachine())
			if id != tc.wantID || (tc.wantID == "") != (err != nil) {
				t.Errorf("TemplateID = %q, %v; want %q", id, err, tc.wantID)
			}
			_ = p.Close(context.Background())
			close(daemon.calls)
			downloaded := false
			for proc := range daemon.calls {
				downloaded = downloaded || proc == 209 // REMOTE_PROC_STORAGE_VOL_DOWNLOAD
				if proc != 209 {
					t.Errorf("TemplateID called procedure %d", proc)
				}
			}
			if downloaded != tc.wantDownload {
				t.Errorf("downloaded %v, want %v", downloaded, tc.wantDownload)
			}
		})
	}
}
