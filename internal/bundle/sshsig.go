package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// SignatureFile is the SSH signature of the manifest, beside it
// (ssh-keygen -Y sign): unlike the manifest, which anyone editing a
// bundle can recompute, it says who published the bundle. It is the one
// file the manifest does not list.
const SignatureFile = ManifestFile + ".sig"

// SignatureNamespace is the namespace (ssh-keygen -n) of a bundle's
// signature: a signature made for anything else does not verify as one.
const SignatureNamespace = "lab-bundle@lab-bench"

// sshKeygenTimeout bounds one ssh-keygen call.
const sshKeygenTimeout = 30 * time.Second

// SignManifest signs dir's manifest with the SSH private key file key
// (ssh-keygen -Y sign), writing SignatureFile. The key must not need a
// passphrase typed on a terminal (ssh-agent serves one that does, when
// key is its public half).
func SignManifest(dir, key string) error {
	_, err := sshKeygen(nil, "-Y", "sign", "-f", key, "-n", SignatureNamespace, filepath.Join(dir, ManifestFile))
	if err != nil {
		return fmt.Errorf("sign %s with %s: %w", ManifestFile, key, err)
	}
	return nil
}

// VerifySignature checks dir's SignatureFile against its manifest and the
// allowed signers file (ssh-keygen's ALLOWED SIGNERS format) and returns
// the principal who signed it. An unsigned bundle, or one signed by a key
// the file does not allow, is an error.
func VerifySignature(dir, allowedSigners string) (string, error) {
	sig := filepath.Join(dir, SignatureFile)
	if _, err := readLimited(sig, MaxInfoFile); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("bundle %s is not signed (no %s): refusing it, as -allowed-signers asks", dir, SignatureFile)
		}
		return "", fmt.Errorf("bundle %s: %w", dir, err)
	}
	out, err := sshKeygen(nil, "-Y", "find-principals", "-s", sig, "-f", allowedSigners)
	if err != nil {
		return "", fmt.Errorf("bundle %s: %s is by no signer %s allows: %w", dir, SignatureFile, allowedSigners, err)
	}
	principal, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	manifest, err := readLimited(filepath.Join(dir, ManifestFile), MaxFile)
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", dir, err)
	}
	if _, err := sshKeygen(manifest, "-Y", "verify", "-f", allowedSigners, "-I", principal, "-n", SignatureNamespace, "-s", sig); err != nil {
		return "", fmt.Errorf("bundle %s: %s does not sign its %s (as %q): %w", dir, SignatureFile, ManifestFile, principal, err)
	}
	return principal, nil
}

// sshKeygen runs ssh-keygen with args and stdin, returning its stdout; an
// error carries its stderr.
func sshKeygen(stdin []byte, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sshKeygenTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ssh-keygen", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &stdout, &stderr
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("ssh-keygen: %s", msg)
		}
		return "", fmt.Errorf("ssh-keygen: %w", err)
	}
	return stdout.String(), nil
}
