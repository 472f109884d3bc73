package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/bundle"
)

// sshKey makes an ed25519 key pair without passphrase with the real
// ssh-keygen and returns the private key's path and an allowed signers
// line for principal.
func sshKey(t *testing.T, principal string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("needs ssh-keygen (openssh-client)")
	}
	key := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(pub))
	return key, principal + " " + f[0] + " " + f[1] + "\n"
}

// TestSignedBundles: lab publish -sign KEY signs the manifest with
// ssh-keygen -Y sign; lab reproduce -allowed-signers FILE refuses a
// bundle that is unsigned, signed by a key the file does not allow, or
// whose manifest was recomputed after the signature (an edited record):
// what a checksum alone cannot catch.
func TestSignedBundles(t *testing.T) {
	key, allowedLine := sshKey(t, "alice@example.org")
	_, otherLine := sshKey(t, "mallory@example.org")
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	other := filepath.Join(t.TempDir(), "other_signers")
	for path, body := range map[string]string{allowed: allowedLine, other: otherLine} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, unsigned, runID := publishedBundle(t)
	signed := filepath.Join(t.TempDir(), "signed")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-chdir=" + dir, "publish", "-o", signed, "-sign", key, "-var", "token=x"}, nil, &stdout, &stderr, nil); code != exitOK {
		t.Fatalf("publish -sign: exit %d\n%s", code, stderr.String())
	}
	if err := bundle.Verify(signed); err != nil {
		t.Fatalf("a signed bundle does not verify: %v", err)
	}
	edited := copyBundle(t, signed)
	scaleRecords(t, filepath.Join(edited, bundle.RecordsDir, runID), 3)
	resign(t, edited) // the manifest recomputed, the signature left as it was

	for _, tt := range []struct {
		name, bundle, signers string
		want                  string // in stderr; "" for a comparison
	}{
		{"signed, allowed", signed, allowed, ""},
		{"signed, not allowed", signed, other, "by no signer"},
		{"unsigned", unsigned, allowed, "is not signed"},
		{"manifest recomputed after signing", edited, allowed, "does not sign"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := lab(t, dir, "reproduce", "-json", "-var", "token=x", "-allowed-signers", tt.signers, "-results", runID, tt.bundle)
			if tt.want == "" {
				if exitStatus(err) == exitError || !strings.Contains(stderr, `signed by "alice@example.org"`) {
					t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", exitStatus(err), stdout, stderr)
				}
				return
			}
			if exitStatus(err) != exitError || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d; want 1 and %q\nstdout:\n%s\nstderr:\n%s", exitStatus(err), tt.want, stdout, stderr)
			}
		})
	}
}
