package libvirt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestHashFile: a volume read from its file on this host hashes to the
// SHA-256 of its bytes and counts them (checkDownload compares the count
// with the volume's physical size); a directory and a missing file are
// errors (TemplateID then downloads), and a done context stops the read.
func TestHashFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "base.qcow2")
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := hashFile(context.Background(), path, h)
	want := sha256.Sum256(data)
	if err != nil || n != uint64(len(data)) || hex.EncodeToString(h.Sum(nil)) != hex.EncodeToString(want[:]) {
		t.Errorf("hashFile = %d, %v; want %d bytes hashed to %x", n, err, len(data), want)
	}
	for _, p := range []string{dir, filepath.Join(dir, "missing")} {
		if _, err := hashFile(context.Background(), p, sha256.New()); err == nil {
			t.Errorf("hashFile(%s): no error", p)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := hashFile(ctx, path, sha256.New()); err == nil {
		t.Error("hashFile with a done context: no error")
	}
}
