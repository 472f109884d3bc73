package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// secretLab uses the sensitive variable key_dir in both machines' private
// key paths (the leak: "private key: open /nonexistent/<secret>").
const secretLab = `
lab "e2e-secret" {}
variable "key_dir" {
  type      = string
  sensitive = true
}
provider "hosts" "bench" {
  server {
    address          = %q
    private_key_file = "${var.key_dir}/server_key"
    iface            = "eth1"
  }
  client {
    address          = %q
    private_key_file = "${var.key_dir}/client_key"
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

// secret is the sensitive value; it must appear nowhere lab writes.
const secret = "s3cr3t-Pa55"

// secretRun runs lab in dir with the sensitive variable from the
// environment and LAB_LOG=trace into log, returning stdout and stderr.
func secretRun(t *testing.T, dir, keyDir, log string, args ...string) (string, string, error) {
	t.Helper()
	cmd := labCmd(dir, args...)
	cmd.Env = append(os.Environ(), "LAB_VAR_key_dir="+keyDir, "LAB_LOG=trace", "LAB_LOG_PATH="+log)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// noSecretIn fails the test for every file under dir that holds secret.
func noSecretIn(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the sensitive value:\n%s", path, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files under %s checked", n, dir)
}

// TestSensitiveNeverWritten drives the error paths with a sensitive
// variable in the private key path: plan, plan -out, apply, apply -json,
// destroy, all with LAB_LOG=trace. The value is in no output, log, record,
// plan or state file, and the errors say "(sensitive value)".
func TestSensitiveNeverWritten(t *testing.T) {
	dir := t.TempDir()
	// Loopback addresses: the key fails to load before any connection.
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(fmt.Sprintf(secretLab, "127.0.0.1", "127.0.0.2")), 0o644); err != nil {
		t.Fatal(err)
	}
	// Characters JSON and %q escape: the value is found in -json events,
	// records and quoted messages too.
	keyDir := "/nonexistent/" + secret + `"<&>`
	log := filepath.Join(dir, "lab.log")
	for _, args := range [][]string{
		{"plan"},
		{"plan", "-out=" + filepath.Join(dir, "saved.plan")},
		{"apply", "-auto-approve"},
		{"apply", "-auto-approve", "-json"},
		{"destroy", "-auto-approve"},
	} {
		stdout, stderr, err := secretRun(t, dir, keyDir, log, args...)
		t.Logf("lab %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("lab %s printed the sensitive value", strings.Join(args, " "))
		}
		if args[0] == "apply" && !strings.Contains(stdout+stderr, "private key: open (sensitive value)/") {
			t.Errorf("lab %s: the key error is missing or not redacted", strings.Join(args, " "))
		}
		jsonErr := regexp.MustCompile(`"type":"error","message":"[^"]*private key: open \(sensitive value\)/`)
		if len(args) > 2 && args[2] == "-json" && !jsonErr.MatchString(stdout) {
			t.Errorf("apply -json: no redacted error event:\n%s", stdout)
		}
	}
	if b, err := os.ReadFile(log); err != nil || !strings.Contains(string(b), "(sensitive value)") {
		t.Errorf("the LAB_LOG=trace log does not show the redacted value: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); err != nil {
		t.Errorf("no results written: %v", err)
	}
	noSecretIn(t, dir)
}

// TestSensitiveStateRoundTripForReal keeps two real machines (-keep)
// logged in to with key files under a directory named by a sensitive
// variable, or computed from one (lower(var.key_dir)): the state holds a
// placeholder, not the path, and `lab destroy` still logs in with the
// path (the placeholder filled from the variable, or from the expression
// evaluated again) and restores the machines.
func TestSensitiveStateRoundTripForReal(t *testing.T) {
	for _, tc := range []struct {
		name, expr  string
		given, dir  string // the variable's last path element; the key directory's
		placeholder string
	}{
		{"variable", "${var.key_dir}", secret, secret, `\(sensitive value var\.key_dir\)/server_key`},
		{"derived", "${lower(var.key_dir)}", strings.ToUpper(secret), strings.ToLower(secret), `\(sensitive value var\.key_dir#[0-9a-f]{8}\.0\)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bm := newBareMetal(t)
			before := hostSettings(t, bm.server.ns)
			// No upper-case letter above the key directory: lower() keeps the path.
			base, err := os.MkdirTemp("", "labt-keys-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			keyDir := filepath.Join(base, tc.dir)
			if err := os.Mkdir(keyDir, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, src := range map[string]string{"server_key": bm.server.keyFile, "client_key": bm.client.keyFile} {
				if out, err := exec.Command("cp", src, filepath.Join(keyDir, name)).CombinedOutput(); err != nil {
					t.Fatalf("cp: %v: %s", err, out)
				}
			}
			dir := t.TempDir()
			src := strings.ReplaceAll(fmt.Sprintf(secretLab, bm.server.addr, bm.client.addr), "${var.key_dir}", tc.expr)
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(dir, "lab.log")
			given := filepath.Join(base, tc.given)
			if stdout, stderr, err := secretRun(t, dir, given, log, "apply", "-auto-approve", "-keep"); err != nil {
				t.Fatalf("apply -keep: %v\n%s\n%s", err, stdout, stderr)
			}
			state, err := os.ReadFile(filepath.Join(dir, ".lab", "state.json"))
			if err != nil || !regexp.MustCompile(tc.placeholder).Match(state) {
				t.Errorf("state lacks the placeholder %s: %v\n%s", tc.placeholder, err, state)
			}
			if hostSettings(t, bm.server.ns) == before {
				t.Fatal("-keep left nothing to restore")
			}
			if stdout, stderr, err := secretRun(t, dir, given, log, "destroy", "-auto-approve"); err != nil {
				t.Fatalf("destroy: %v\n%s\n%s", err, stdout, stderr)
			}
			if got := hostSettings(t, bm.server.ns); got != before {
				t.Errorf("server after destroy: %s, want %s", got, before)
			}
			noTextIn(t, dir, tc.given, "")
			noTextIn(t, dir, tc.dir, "")
		})
	}
}

// diagSecretLab gives a sensitive variable to attributes whose errors
// quote the value (an operating system lab does not know).
const diagSecretLab = `
lab "diag-secret" {}
variable "tok" {
  type      = string
  sensitive = true
}
template "host" {
  os = var.tok
}
pair "p" { template = template.host }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}
`

// TestSensitiveNotInDiagnostics: a spec that fails to load because of a
// sensitive variable's value says "(sensitive value)" in its diagnostics,
// as text and in validate -json, also when the value holds a quote, a
// control byte and <>& (escaped by %q, then by JSON). The value used to
// be printed: the Set learnt the values only once the spec had loaded.
func TestSensitiveNotInDiagnostics(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(diagSecretLab), 0o644); err != nil {
		t.Fatal(err)
	}
	value := secret + "\"<&>\x1b[31m"
	for _, args := range [][]string{{"validate"}, {"validate", "-json"}, {"plan"}, {"plan", "-json"}, {"destroy", "-auto-approve"}} {
		code, stdout, stderr := runMain(dir, append(args, "-var", "tok="+value)...)
		// destroy of an empty state succeeds, after the same diagnostics.
		if code == 0 && args[0] != "destroy" || strings.Contains(stdout+stderr, secret) || !strings.Contains(stdout+stderr, "(sensitive value)") {
			t.Errorf("lab %s: exit %d, want an error that says (sensitive value) and never the value:\n%s%s",
				strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
