package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	labssh "github.com/lab-bench/lab/guest/ssh"
)

// pinLab is one cell on two borrowed machines: MTU 9000, which teardown
// puts back.
const pinLab = `
lab "e2e-pins" {}
variable "server" { type = string }
provider "hosts" "bench" {
  server {
    address          = var.server
    private_key_file = %q
    iface            = "eth1"
  }
  client {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
  }
}
template "host" {
  provider = provider.hosts.bench
  os       = "linux"
}
pair "bm" { template = template.host }
experiment "jumbo" {
  pairs = [pair.bm]
  guest { mtu = 9000 }
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
}
`

func writePinLab(t *testing.T, dir string, bm bareMetal) {
	t.Helper()
	src := fmt.Sprintf(pinLab, bm.server.keyFile, bm.client.addr, bm.client.keyFile)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// printed returns the command between backticks in msg that starts with
// prefix, failing the test when there is none.
func printed(t *testing.T, msg, prefix string) string {
	t.Helper()
	parts := strings.Split(msg, "`")
	for i := 1; i < len(parts); i += 2 {
		if strings.HasPrefix(parts[i], prefix) {
			return parts[i]
		}
	}
	t.Fatalf("no `%s…` command in:\n%s", prefix, msg)
	return ""
}

// runPrinted runs a command lab printed, as printed, by a shell whose
// PATH finds this build as "lab", with stdin as the user's answers.
func runPrinted(t *testing.T, command, stdin string) (string, error) {
	t.Helper()
	bin := t.TempDir()
	if err := os.Symlink(labBin, filepath.Join(bin, "lab")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestHostKeyPinsForReal rotates a borrowed machine's sshd host key (a
// real sshd restarted with a new key, as a reinstall does) between two
// applies: refused with the ssh-keygen command that accepts it; accepted
// after running that command as printed. Then with -keep: the machine's
// key rotates before `lab destroy`, which refuses to log in and prints
// the `lab destroy -abandon=…` command that lets it go; that command,
// run as printed, drops it from the state, restores the other machine and
// prints the settings it left. Last, the same with the new key accepted
// by the printed ssh-keygen command: destroy then restores the machine.
func TestHostKeyPinsForReal(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("needs ssh-keygen (Debian package openssh-client)")
	}
	bm := newBareMetal(t)
	top := t // a reinstalled sshd lives as long as the test, not the subtest
	before := map[string]string{}
	for _, m := range []borrowedMachine{bm.server, bm.client} {
		before[m.ns] = hostSettings(t, m.ns)
	}
	dir := t.TempDir()
	writePinLab(t, dir, bm)
	varServer := "-var=server=" + bm.server.addr
	pins := filepath.Join(dir, ".lab", "known_hosts")

	if stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", varServer); err != nil {
		t.Fatalf("first apply: %v\n%s\n%s", err, stdout, stderr)
	}
	fi, err := os.Stat(pins)
	if err != nil {
		t.Fatalf("no pin file after the first apply: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("pin file mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(pins)
	for _, m := range []borrowedMachine{bm.server, bm.client} {
		if !strings.Contains(string(b), m.addr+" "+m.hostKey) {
			t.Errorf("pin file lacks %s %s:\n%s", m.addr, m.hostKey, b)
		}
	}

	t.Run("rotation between applies", func(t *testing.T) {
		bm.server.reinstall(top)
		writePinLab(t, dir, bm)
		stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", varServer)
		out := stdout + stderr
		if err == nil || !strings.Contains(out, "host key changed") {
			t.Fatalf("apply after the server's key rotated: %v\n%s", err, out)
		}
		forget := printed(t, out, "ssh-keygen")
		if want := labssh.ForgetCommand(pins, bm.server.addr+":22"); forget != want {
			t.Errorf("printed %q, want %q", forget, want)
		}
		for _, m := range []borrowedMachine{bm.server, bm.client} {
			if got := hostSettings(t, m.ns); got != before[m.ns] {
				t.Errorf("%s after the refused apply: %s, want %s", m.ns, got, before[m.ns])
			}
		}
		if out, err := runPrinted(t, forget, ""); err != nil {
			t.Fatalf("%s: %v\n%s", forget, err, out)
		}
		if stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", varServer); err != nil {
			t.Fatalf("apply after accepting the new key: %v\n%s\n%s", err, stdout, stderr)
		}
		if b, _ := os.ReadFile(pins); !strings.Contains(string(b), bm.server.addr+" "+bm.server.hostKey) {
			t.Errorf("the new key is not pinned:\n%s", b)
		}
	})

	t.Run("keep then rotation then destroy", func(t *testing.T) {
		if stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep", varServer); err != nil {
			t.Fatalf("apply -keep: %v\n%s\n%s", err, stdout, stderr)
		}
		left := hostSettings(t, bm.server.ns)
		if left == before[bm.server.ns] {
			t.Fatalf("with -keep the cell's settings stay until destroy, got %s", left)
		}
		bm.server.reinstall(top)
		writePinLab(t, dir, bm)
		stdout, stderr, err := lab(t, dir, "destroy", "-auto-approve", varServer)
		out := stdout + stderr
		if err == nil || !strings.Contains(out, "host key changed") {
			t.Fatalf("destroy after the server's key rotated: %v\n%s", err, out)
		}
		t.Logf("refusal:\n%s", stderr)
		abandon := printed(t, out, "lab ")
		want := fmt.Sprintf("lab -chdir=%s destroy %s -abandon=pair.bm.server", dir, varServer)
		if abandon != want {
			t.Errorf("printed %q, want %q", abandon, want)
		}
		if got := hostSettings(t, bm.server.ns); got != left {
			t.Errorf("the refused destroy changed the server: %s, was %s", got, left)
		}
		out, err = runPrinted(t, abandon, "yes\n")
		if err != nil {
			t.Fatalf("%s: %v\n%s", abandon, err, out)
		}
		if !strings.Contains(out, "put them back by hand") || !strings.Contains(out, "mtu=1500") {
			t.Errorf("destroy -abandon does not say what it left:\n%s", out)
		}
		if got := hostSettings(t, bm.server.ns); got != left {
			t.Errorf("an abandoned machine was changed: %s, was %s", got, left)
		}
		if got := hostSettings(t, bm.client.ns); got != before[bm.client.ns] {
			t.Errorf("client after destroy: %s, want %s", got, before[bm.client.ns])
		}
		if out, _, err := lab(t, dir, "state", "list"); err != nil || !strings.Contains(out, "no objects") {
			t.Errorf("state after destroy -abandon: %v\n%s", err, out)
		}
		// The user puts the value back as told. The pin stays: the next
		// apply still refuses the new key until it is accepted.
		sh(t, "ip", "-n", bm.server.ns, "link", "set", "eth1", "mtu", "1500")
		if got := hostSettings(t, bm.server.ns); got != before[bm.server.ns] {
			t.Fatalf("server after putting mtu back: %s, want %s", got, before[bm.server.ns])
		}
		stdout, stderr, err = lab(t, dir, "apply", "-auto-approve", varServer)
		if err == nil || !strings.Contains(stdout+stderr, "host key changed") {
			t.Fatalf("apply after -abandon trusted the new key: %v\n%s\n%s", err, stdout, stderr)
		}
		forget := printed(t, stdout+stderr, "ssh-keygen")
		if out, err := runPrinted(t, forget, ""); err != nil {
			t.Fatalf("%s: %v\n%s", forget, err, out)
		}
	})

	t.Run("keep then rotation accepted then destroy restores", func(t *testing.T) {
		if stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep", varServer); err != nil {
			t.Fatalf("apply -keep: %v\n%s\n%s", err, stdout, stderr)
		}
		bm.server.reinstall(top)
		writePinLab(t, dir, bm)
		stdout, stderr, err := lab(t, dir, "destroy", "-auto-approve", varServer)
		if err == nil {
			t.Fatalf("destroy trusted a rotated key:\n%s\n%s", stdout, stderr)
		}
		forget := printed(t, stdout+stderr, "ssh-keygen")
		if out, err := runPrinted(t, forget, ""); err != nil {
			t.Fatalf("%s: %v\n%s", forget, err, out)
		}
		if stdout, stderr, err := lab(t, dir, "destroy", "-auto-approve", varServer); err != nil {
			t.Fatalf("destroy after accepting the new key: %v\n%s\n%s", err, stdout, stderr)
		}
		for _, m := range []borrowedMachine{bm.server, bm.client} {
			if got := hostSettings(t, m.ns); got != before[m.ns] {
				t.Errorf("%s after destroy: %s, want %s", m.ns, got, before[m.ns])
			}
		}
	})
}
