package netns_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
)

func TestRunInsideNamespace(t *testing.T) {
	p := netnstest.NewPair(t)
	tr := netns.New("pair.t.server", p.A.NS, nil)
	res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"ip", "-brief", "addr", "show", "dev", p.A.Iface}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Stdout), p.A.Addr+"/24") {
		t.Errorf("ip addr in %s: got %q, want %s", p.A.NS, res.Stdout, p.A.Addr)
	}
	// The other end's interface is not visible here.
	if _, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"ip", "link", "show", "dev", p.B.Iface}}); err == nil {
		t.Errorf("%s visible inside %s", p.B.Iface, p.A.NS)
	}
}

func TestExitStatusCarriesStderr(t *testing.T) {
	p := netnstest.NewPair(t)
	tr := netns.New("pair.t.client", p.B.NS, nil)
	_, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"ls", "/does/not exist"}})
	var ce *guest.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want *guest.CommandError", err)
	}
	if ce.ExitCode == 0 || !strings.Contains(ce.Stderr, "No such file") || ce.Guest != "pair.t.client" {
		t.Errorf("error lacks detail: %+v", ce)
	}
	if ce.Cmd != "ls '/does/not exist'" {
		t.Errorf("Cmd = %q, want the quoted command", ce.Cmd)
	}
	if !strings.Contains(err.Error(), "pair.t.client: ls '/does/not exist': exit status 2") {
		t.Errorf("message: %v", err)
	}
}

func TestStdinAndPinning(t *testing.T) {
	p := netnstest.NewPair(t)
	tr := netns.New("g", p.A.NS, nil).Pinned([]int{0})
	res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"sh", "-c", "cat; taskset -pc $$"}, Stdin: strings.NewReader("hello\n")})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if !strings.HasPrefix(out, "hello\n") || !strings.Contains(out, "current affinity list: 0") {
		t.Errorf("output %q: want stdin echoed and affinity 0", out)
	}
}

func TestCancelKillsProcessGroup(t *testing.T) {
	p := netnstest.NewPair(t)
	tr := netns.New("g", p.A.NS, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// sh forks sleep: killing only sh would leave sleep running.
		_, err := tr.Run(ctx, guest.Cmd{Argv: []string{"sh", "-c", "sleep 100; true"}})
		done <- err
	}()
	// Wait until sh and its sleep run in the namespace (not a fixed sleep).
	for deadline := time.Now().Add(10 * time.Second); ; {
		out, _ := exec.Command("ip", "netns", "pids", p.A.NS).Output()
		if len(strings.Fields(string(out))) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command did not start in %s", p.A.NS)
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v to die", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("sleep 100 survived cancellation")
	}
	// From the host namespace: a command run inside would list itself.
	out, _ := netns.New("host", "", nil).Run(context.Background(), guest.Cmd{Argv: []string{"ip", "netns", "pids", p.A.NS}})
	if strings.TrimSpace(string(out.Stdout)) != "" {
		t.Errorf("processes left in namespace: %q", out.Stdout)
	}
}

func TestUpload(t *testing.T) {
	p := netnstest.NewPair(t)
	tr := netns.New("g", p.A.NS, nil)
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := tr.Upload(context.Background(), path, strings.NewReader("data")); err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"cat", path}})
	if err != nil || string(res.Stdout) != "data" {
		t.Fatalf("cat inside ns: %q, %v", res.Stdout, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
}

// TestUploadRefusesSymlink: Upload, root on the host, never follows a
// symlink at the path (one planted in a shared /tmp would aim it at any
// file); the symlink's target is left alone.
func TestUploadRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target, path := filepath.Join(dir, "precious"), filepath.Join(dir, "upload")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	err := netns.New("g", "", nil).Upload(context.Background(), path, strings.NewReader("data"))
	if err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Errorf("Upload over a symlink: %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("the symlink's target was written: %q", got)
	}
}

// A command killed by a signal from outside says so, not "exit status -1".
func TestKilledCommandNamesTheSignal(t *testing.T) {
	p := netnstest.NewPair(t)
	tr := netns.New("g", p.A.NS, nil)
	_, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"sh", "-c", "kill -KILL $$"}})
	if err == nil || !strings.Contains(err.Error(), "killed by signal killed") || strings.Contains(err.Error(), "exit status -1") {
		t.Errorf("err = %v", err)
	}
}

// TestReadSharedServesOnlyFilesNoNamespaceChanges: /proc/stat is read in
// process (the same whole-system CPU times a command in the namespace
// reads); a per-namespace file such as /proc/net/snmp is not served, so
// the caller runs its command inside the namespace.
func TestReadSharedServesOnlyFilesNoNamespaceChanges(t *testing.T) {
	p := netnstest.NewPair(t)
	tr := netns.New("pair.t.server", p.A.NS, nil)
	for _, tc := range []struct {
		path   string
		served bool
	}{{"/proc/stat", true}, {"/proc/net/snmp", false}, {"/proc/sys/net/ipv4/tcp_congestion_control", false}, {"/etc/hosts", false}} {
		data, ok, err := tr.ReadShared(context.Background(), tc.path)
		if ok != tc.served || err != nil {
			t.Errorf("%s: served %v (err %v), want %v", tc.path, ok, err, tc.served)
		}
		if ok && !strings.Contains(string(data), "cpu0 ") {
			t.Errorf("%s: %.200q", tc.path, data)
		}
	}
	var _ guest.SharedFileReader = tr
}
