package libvirt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"

	golibvirt "github.com/digitalocean/go-libvirt"
	"github.com/diskfs/go-diskfs/backend/file"
	"github.com/diskfs/go-diskfs/filesystem/iso9660"
	xssh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
)

// A template with cloud_init {} is a cloud image: it takes its SSH key,
// hostname and packages at first boot from a NoCloud seed
// (https://cloudinit.readthedocs.io/en/latest/reference/datasources/nocloud.html):
// a file system labelled "cidata" holding meta-data, user-data and
// network-config. lab writes it as an ISO 9660 image with Rock Ridge names
// (cloud-init looks the files up by these exact names), uploads it into
// the pool as the volume <machine>-cidata.iso (StorageVolCreateXML +
// StorageVolUpload, so a remote libvirtd works the same) and attaches it as
// a read-only virtio disk. Like the overlay, the volume is named in the domain's metadata,
// defined first, and deleted with the domain.

// seedVolumeName is the cloud-init seed of a machine.
func seedVolumeName(machine string) string { return machine + "-cidata.iso" }

// seedFiles are a seed's three files for one guest.
type seedFiles struct {
	MetaData, UserData, NetworkConfig string
}

// seedNIC is a NIC the seed's network-config brings up by DHCP.
type seedNIC struct{ ID, MAC string }

// makeSeed writes the NoCloud files for one guest: an instance id and
// hostname of its own, lab's public key for login as login.User, the
// template's packages, the user's own user-data as a second part, and
// DHCP on every NIC lab gave it, matched by MAC.
func makeSeed(name, instanceID string, login machine.Login, pubKey string, ci machine.CloudInit, nics []seedNIC) (seedFiles, error) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) } // YAML accepts JSON strings
	var f seedFiles
	host := name
	if len(host) > 63 {
		host = host[:63]
	}
	f.MetaData = fmt.Sprintf("instance-id: %s\nlocal-hostname: %s\n", q(instanceID), q(host))

	var cc strings.Builder
	cc.WriteString("#cloud-config\n")
	user := login.User
	if user == "" || user == "root" {
		// The key goes to the image's default user and, with root login
		// allowed, to root as it is (not behind "login as …").
		cc.WriteString("disable_root: false\n")
		fmt.Fprintf(&cc, "ssh_authorized_keys:\n  - %s\n", q(pubKey))
	} else {
		fmt.Fprintf(&cc, "users:\n  - default\n  - name: %s\n    shell: /bin/sh\n    sudo: %s\n    lock_passwd: true\n    ssh_authorized_keys:\n      - %s\n",
			q(user), q("ALL=(ALL) NOPASSWD:ALL"), q(pubKey))
	}
	cc.WriteString("ssh_pwauth: false\n")
	if len(ci.Packages) > 0 {
		cc.WriteString("packages:\n")
		for _, p := range ci.Packages {
			fmt.Fprintf(&cc, "  - %s\n", q(p))
		}
	}
	if ci.UserData == "" {
		f.UserData = cc.String()
	} else {
		// Two parts: lab's, then the user's; a second cloud-config merges
		// into the first with lists appended (cloud-init's Merge-Type).
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=%q\nMIME-Version: 1.0\n\n", w.Boundary())
		parts := []struct {
			typ, body string
		}{{"text/cloud-config", cc.String()}, {"text/x-shellscript", ci.UserData}}
		if strings.HasPrefix(ci.UserData, "#cloud-config") {
			parts[1].typ = "text/cloud-config"
		}
		for i, p := range parts {
			h := textproto.MIMEHeader{"Content-Type": {p.typ + `; charset="utf-8"`}, "MIME-Version": {"1.0"}}
			if i > 0 {
				h.Set("Merge-Type", "list(append)+dict(no_replace,recurse_list)+str()")
			}
			pw, err := w.CreatePart(h)
			if err != nil {
				return f, err
			}
			if _, err := io.WriteString(pw, p.body); err != nil {
				return f, err
			}
		}
		if err := w.Close(); err != nil {
			return f, err
		}
		f.UserData = b.String()
	}

	var nc strings.Builder
	nc.WriteString("version: 2\nethernets:\n")
	for _, n := range nics {
		fmt.Fprintf(&nc, "  %s:\n    match:\n      macaddress: %s\n    dhcp4: true\n    dhcp-identifier: mac\n", n.ID, q(strings.ToLower(n.MAC)))
	}
	f.NetworkConfig = nc.String()
	return f, nil
}

// seedISO builds the seed's ISO 9660 image (volume label "cidata", Rock
// Ridge names) in a temporary directory and returns its bytes.
func seedISO(f seedFiles) ([]byte, error) {
	dir, err := os.MkdirTemp("", "lab-cidata")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	img := filepath.Join(dir, "seed.iso")
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		return nil, err
	}
	// The image grows as Finalize writes it; 1 MiB bounds what it may take.
	b, err := file.CreateFromPath(img, 1<<20)
	if err != nil {
		return nil, err
	}
	fs, err := iso9660.Create(b, 0, 0, 2048, work)
	if err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("cloud-init seed: %w", err)
	}
	for _, x := range []struct{ name, body string }{{"meta-data", f.MetaData}, {"user-data", f.UserData}, {"network-config", f.NetworkConfig}} {
		w, err := fs.OpenFile("/"+x.name, os.O_CREATE|os.O_RDWR)
		if err != nil {
			_ = b.Close()
			return nil, fmt.Errorf("cloud-init seed %s: %w", x.name, err)
		}
		if _, err := w.Write([]byte(x.body)); err != nil {
			_ = b.Close()
			return nil, fmt.Errorf("cloud-init seed %s: %w", x.name, err)
		}
	}
	if err := fs.Finalize(iso9660.FinalizeOptions{RockRidge: true, VolumeIdentifier: "cidata"}); err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("cloud-init seed: %w", err)
	}
	if err := b.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(img)
}

// publicKey is the public half of the login's private_key_file (or the
// .pub file beside it): the key the seed authorises.
func publicKey(login machine.Login) (string, error) {
	if login.PrivateKeyFile == "" {
		return "", errors.New("cloud_init needs the template's ssh { private_key_file = … }: its public key is what the seed authorises")
	}
	path, err := ssh.ExpandHome(login.PrivateKeyFile)
	if err != nil {
		return "", err
	}
	if pem, err := os.ReadFile(path); err == nil {
		if s, err := xssh.ParsePrivateKey(pem); err == nil {
			return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(s.PublicKey()))), nil
		}
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil {
		return "", fmt.Errorf("cloud_init: cannot read the public key of %s (neither the key nor %s.pub): %w", path, path, err)
	}
	k, _, _, _, err := xssh.ParseAuthorizedKey(pub)
	if err != nil {
		return "", fmt.Errorf("cloud_init: %s.pub: %w", path, err)
	}
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(k))), nil
}

// writeSeed makes m's seed and uploads it into the pool as
// seedVolumeName(m.Name).
func (p *Provider) writeSeed(l *golibvirt.Libvirt, pool golibvirt.StoragePool, m machine.Machine, instanceID string, login machine.Login, pubKey string, nics []seedNIC) error {
	files, err := makeSeed(m.Name, instanceID, login, pubKey, *m.Template.CloudInit, nics)
	if err != nil {
		return err
	}
	iso, err := seedISO(files)
	if err != nil {
		return err
	}
	return p.uploadSeed(l, pool, seedVolumeName(m.Name), iso)
}

// uploadSeed creates the seed volume in the pool and fills it.
func (p *Provider) uploadSeed(l *golibvirt.Libvirt, pool golibvirt.StoragePool, name string, iso []byte) error {
	vol, err := l.StorageVolCreateXML(pool, volumeXML(name, uint64(len(iso)), "raw", "", ""), 0)
	if err != nil {
		return callErr("StorageVolCreateXML", name, err)
	}
	if err := l.StorageVolUpload(vol, bytes.NewReader(iso), 0, uint64(len(iso)), 0); err != nil {
		return callErr("StorageVolUpload", name, err)
	}
	return nil
}
