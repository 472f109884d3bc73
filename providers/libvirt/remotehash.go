package libvirt

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
)

// A template volume's identity on a qemu+ssh:// host, hashed there. The
// volume's file is read by the host's own tool over lab's SSH login (the
// one the URI names, as remote.go's dialer uses), not streamed through
// go-libvirt's StorageVolDownload: that download wedges the whole
// connection when libvirtd sends an empty stream packet before the end
// (identity.go). Only a 64-digit answer crosses the network instead of
// the image. A login that cannot read the file (a user other than root
// and a volume of mode 0600) leaves it to the download, as before.

// sha256Empty is the SHA-256 of no bytes: a volume of data that hashes so
// was not read.
const sha256Empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// remoteHashCmd is the command that prints path's SHA-256 on a host
// whose `uname -s` is kernel: FreeBSD's sha256(1) (md5(1): -q prints the
// digest only), else GNU coreutils' sha256sum.
func remoteHashCmd(kernel, path string) guest.Cmd {
	if kernel == "FreeBSD" {
		return guest.Cmd{Argv: []string{"sha256", "-q", "--", path}}
	}
	return guest.Cmd{Argv: []string{"sha256sum", "--", path}}
}

// parseHashReply reads the digest from what remoteHashCmd printed.
// coreutils' sha256sum prints "DIGEST  NAME" (two spaces in text mode,
// " *" in binary mode; src/digest.c, output_file), with a backslash
// before the line when the name holds a backslash or newline; FreeBSD's
// sha256 -q prints "DIGEST". Either way the line ends with a newline.
func parseHashReply(out string) (string, error) {
	line, _, _ := strings.Cut(out, "\n")
	line = strings.TrimPrefix(line, `\`)
	sum, _, _ := strings.Cut(line, " ")
	if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 {
		return "", fmt.Errorf("the reply %q holds no SHA-256 digest", strings.TrimSpace(out))
	}
	return strings.ToLower(sum), nil
}

// hashOverSSH is the hex SHA-256 of the file at path on the libvirt host
// of a qemu+ssh:// URI, computed there; size is the volume's size as
// libvirtd reports it (0: unknown), against which an empty file's
// digest is refused.
func (p *Provider) hashOverSSH(ctx context.Context, path string, size uint64) (string, error) {
	c, _, err := p.hostSSH()
	if err != nil {
		return "", err
	}
	t, err := ssh.Dial(ctx, "libvirt host "+c.Host, c)
	if err != nil {
		return "", err
	}
	defer func() { _ = t.Close() }() // a logout: nothing to keep
	res, err := t.Run(ctx, guest.Cmd{Argv: []string{"uname", "-s"}})
	if err != nil {
		return "", err
	}
	res, err = t.Run(ctx, remoteHashCmd(strings.TrimSpace(string(res.Stdout)), path))
	if err != nil {
		return "", err
	}
	sum, err := parseHashReply(string(res.Stdout))
	if err != nil {
		return "", fmt.Errorf("libvirt host %s: %s: %w", c.Host, path, err)
	}
	if sum == sha256Empty && size > 0 {
		return "", fmt.Errorf("libvirt host %s: %s hashed as empty, yet the volume holds %d bytes: its identity is unknown (not hashed)", c.Host, path, size)
	}
	return sum, nil
}
