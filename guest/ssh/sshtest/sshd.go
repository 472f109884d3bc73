package sshtest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SSHDPath is where Debian's openssh-server installs sshd (sshd insists on
// being started by its absolute path).
const SSHDPath = "/usr/sbin/sshd"

// RequireSSHD skips the test when sshd is not installed, except in CI
// (CI set in the environment), where its absence is a failure.
func RequireSSHD(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(SSHDPath); err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s missing: install the Debian package openssh-server", SSHDPath)
	}
	t.Skipf("needs %s (Debian package openssh-server)", SSHDPath)
}

// SSHD is a running OpenSSH server.
type SSHD struct {
	Port    int
	KeyFile string // client private key the server accepts (OpenSSH format)
	HostKey string // the server's host key, one authorized_keys line
	stop    func()
}

// Stop kills the server before the test ends (a test that restarts a
// machine's sshd with a new host key, as a reinstall would). Its log still
// goes to the test log if the test fails.
func (s *SSHD) Stop() { s.stop() }

// RunSSHD is StartSSHD returning the server, which the test may Stop
// early.
func RunSSHD(t testing.TB, netns, listenAddr string) *SSHD {
	t.Helper()
	s := startSSHD(t, netns, listenAddr)
	return &s
}

// StartSSHD runs a real OpenSSH sshd (`sshd -D -e -f CONFIG`) listening on
// listenAddr, inside network namespace netns (`ip netns exec`; "" = this
// namespace), with a generated ed25519 host key and one generated client
// key in AuthorizedKeysFile. Root may log in with that key; PAM and strict
// modes are off, so it runs from a temporary directory. Inside a namespace
// it listens on port 22; in this namespace on a free port. It is killed
// when the test ends; its log goes to the test log on failure.
func StartSSHD(t testing.TB, netns, listenAddr string) (port int, keyFile, hostKey string) {
	t.Helper()
	s := startSSHD(t, netns, listenAddr)
	return s.Port, s.KeyFile, s.HostKey
}

func startSSHD(t testing.TB, netns, listenAddr string) SSHD {
	t.Helper()
	RequireSSHD(t)
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // privilege separation directory
		t.Fatalf("sshd: %v", err)
	}
	dir := t.TempDir()
	hk, ck := NewKey(t), NewKey(t)
	hostKeyFile := WriteKey(t, dir, "ssh_host_ed25519_key", hk)
	out := SSHD{Port: 22, KeyFile: WriteKey(t, dir, "id_ed25519", ck), HostKey: PublicKey(t, hk)}
	if netns == "" {
		out.Port = freePortOn(t, listenAddr)
	}
	auth := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(auth, []byte(PublicKey(t, ck)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sshd_config")
	conf := strings.Join([]string{
		"ListenAddress " + net.JoinHostPort(listenAddr, strconv.Itoa(out.Port)),
		"HostKey " + hostKeyFile,
		"AuthorizedKeysFile " + auth,
		"PermitRootLogin prohibit-password",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"StrictModes no",
		"PidFile none",
		"UseDNS no",
		"PrintMotd no",
		"LogLevel INFO",
		"",
	}, "\n")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	argv := []string{SSHDPath, "-D", "-e", "-f", cfg}
	if netns != "" {
		argv = append([]string{"ip", "netns", "exec", netns}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	var mu sync.Mutex
	var log []string
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			mu.Lock()
			log = append(log, sc.Text())
			mu.Unlock()
			if !signalled && strings.Contains(sc.Text(), "Server listening on") {
				signalled = true
				close(ready)
			}
		}
	}()
	var exitErr error // read only after exited is closed
	exited := make(chan struct{})
	go func() { exitErr = cmd.Wait(); close(exited) }()
	var once sync.Once
	out.stop = func() {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		})
	}
	t.Cleanup(func() {
		out.stop()
		if t.Failed() {
			mu.Lock()
			t.Logf("sshd in %q log:\n%s", netns, strings.Join(log, "\n"))
			mu.Unlock()
		}
	})
	select {
	case <-ready:
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("sshd exited at start: %v\n%s", exitErr, strings.Join(log, "\n"))
	case <-time.After(10 * time.Second):
		t.Fatalf("sshd did not report listening on %s:%d within 10s", listenAddr, out.Port)
	}
	return out
}

func freePortOn(t testing.TB, host string) int {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("free port on %s: %v", host, err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
