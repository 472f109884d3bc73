package bundle

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TamperedError says which file of a bundle does not match its manifest.
type TamperedError struct {
	Dir  string
	Path string // slash-separated, relative to Dir
	Why  string // "checksum mismatch", "missing", "not in the manifest", …
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("bundle %s: %s: %s (%s)", e.Dir, e.Path, e.Why, ManifestFile)
}

// Sign writes dir's MANIFEST.sha256: one "<sha256>  <path>" line for every
// regular file under dir but the manifest itself, sorted by path.
func Sign(dir string) error {
	files, err := listFiles(dir)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, rel := range files {
		sum, err := fileSum(filepath.Join(dir, filepath.FromSlash(rel)), limitFor(rel))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, rel)
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), b.Bytes(), 0o644)
}

// Verify checks dir against its MANIFEST.sha256: every file listed must
// exist with its checksum, and no other file may be there. The first
// problem is returned as a *TamperedError naming the file.
func Verify(dir string) error {
	want, err := readManifest(dir)
	if err != nil {
		return err
	}
	files, err := listFiles(dir)
	if err != nil {
		return err
	}
	var total int64
	for _, rel := range files {
		if _, ok := want[rel]; !ok {
			return &TamperedError{Dir: dir, Path: rel, Why: "not in the manifest"}
		}
		// Sizes first, before any file is read: a sparse 1 GiB file
		// costs nothing to make and seconds to hash.
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return &TamperedError{Dir: dir, Path: rel, Why: err.Error()}
		}
		if limit := limitFor(rel); fi.Size() > limit {
			return &TamperedError{Dir: dir, Path: rel, Why: sizeError(fi.Size(), limit)}
		}
		if total += fi.Size(); total > MaxTotal {
			return &TamperedError{Dir: dir, Path: rel, Why: fmt.Sprintf("brings the bundle's files past %d bytes, the limit of a bundle", MaxTotal)}
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(want)) {
		sum, err := fileSum(filepath.Join(dir, filepath.FromSlash(rel)), limitFor(rel))
		if errors.Is(err, fs.ErrNotExist) {
			return &TamperedError{Dir: dir, Path: rel, Why: "missing"}
		}
		if err != nil {
			return &TamperedError{Dir: dir, Path: rel, Why: err.Error()}
		}
		if sum != want[rel] {
			return &TamperedError{Dir: dir, Path: rel, Why: "checksum mismatch"}
		}
	}
	return nil
}

// readManifest parses MANIFEST.sha256 into path → hex sum.
func readManifest(dir string) (map[string]string, error) {
	data, err := readLimited(filepath.Join(dir, ManifestFile), MaxFile)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		sum, rel, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 || !isHex(sum) || !validPath(rel) {
			return nil, fmt.Errorf("bundle %s: %s:%d: want \"<sha256>  <path>\"", dir, ManifestFile, line)
		}
		if _, dup := want[rel]; dup {
			return nil, fmt.Errorf("bundle %s: %s:%d: %s listed twice", dir, ManifestFile, line, rel)
		}
		want[rel] = sum
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bundle %s: %s: %w", dir, ManifestFile, err)
	}
	return want, nil
}

// listFiles is every file under dir but the manifest, as sorted
// slash-separated relative paths. Anything but a directory or a regular
// file is refused.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return &TamperedError{Dir: dir, Path: rel, Why: "not a regular file"}
		case rel == ManifestFile, rel == SignatureFile: // the signature signs the manifest
			return nil
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// fileSum is the hex SHA-256 of the regular file path, of at most limit
// bytes.
func fileSum(path string, limit int64) (string, error) {
	f, err := openLimited(path, limit)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", fmt.Errorf("%s grew past %d bytes while read", path, limit)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// validPath accepts a clean, relative, slash-separated path that stays
// inside the bundle.
func validPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && p == filepath.ToSlash(filepath.Clean(p)) &&
		p != ".." && !strings.HasPrefix(p, "../")
}
