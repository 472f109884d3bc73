package ssh_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// TestRealSSHD runs the transport against OpenSSH's sshd on loopback: a
// real shell parses the quoted words, real exit codes, a real SIGKILL.
func TestRealSSHD(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (sshd)")
	}
	port, keyFile, hostKey := sshtest.StartSSHD(t, "", "127.0.0.1")
	start := time.Now()
	tr, err := labssh.Dial(context.Background(), "real", labssh.Config{Host: "127.0.0.1", Port: port, PrivateKeyFile: keyFile,
		KnownHostKey: hostKey, Retry: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	t.Logf("SSH connect to a real sshd: %v", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()

	words := []string{"two words", "it's", "$(echo pwned)", "`id`", "a;b", "*", "", "\\n", "-n"}
	res, err := tr.Run(ctx, guest.Cmd{Argv: append([]string{"printf", "%s\\n"}, words...)})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(res.Stdout), "\n"), "\n"); strings.Join(got, "|") != strings.Join(words, "|") {
		t.Errorf("words arrived as %q, want %q", got, words)
	}

	_, err = tr.Run(ctx, guest.Cmd{Argv: []string{"sh", "-c", "echo oops >&2; exit 7"}})
	var ce *guest.CommandError
	if !errors.As(err, &ce) || ce.ExitCode != 7 || strings.TrimSpace(ce.Stderr) != "oops" {
		t.Errorf("exit: %v", err)
	}

	dst := filepath.Join(t.TempDir(), "up loaded")
	if err := tr.Upload(ctx, dst, strings.NewReader("payload\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dst); err != nil || string(b) != "payload\n" {
		t.Errorf("uploaded %q %v", b, err)
	}

	// Cancelling kills the remote process (OpenSSH refuses the signal for
	// root: the transport kills it by process id).
	arg := fmt.Sprintf("3600.%06d", time.Now().UnixNano()%1000000) // unique, to find it
	t.Cleanup(func() { _ = exec.Command("pkill", "-KILL", "-x", "-f", "sleep "+arg).Run() })
	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_, err = tr.Run(cctx, guest.Cmd{Argv: []string{"sleep", arg}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancel: %v", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-x", "-f", "sleep "+arg).Output()
		if len(strings.TrimSpace(string(out))) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("remote sleep still running after cancel: pids %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
