package libvirt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Capabilities are every virtio knob the domain XML carries (model, queues,
// host-side offload bits, the RX ring size), vCPU and memory, and the MTU of the networks lab
// creates (none when the spec names an existing network). No routed pairs:
// a router guest would need a second NIC on a second network, which this
// back end does not make yet. No TX ring size: libvirt's formatdomain
// docs (interface <driver>, tx_queue_size) say QEMU takes it only for
// vhost-user interfaces, and QEMU caps it at 256 for tap backends (qemu
// commit 4271f40, "virtio-net: correctly report maximum tx_queue_size").
//
// NIC models: QEMU's device models as libvirt names them (<model type=…/>).
// Only virtio takes queues, ring sizes and host offload bits (libvirt's
// <driver> attributes of virtio; xml.go refuses them for the others, the
// plan first). vmxnet3 is QEMU's model of VMware's device (hw/net/vmxnet3.c:
// device and UPT revision 1 only, MTU 60–9000), not ESXi's: what a guest
// measures on it says nothing about vSphere. Its LRO is the guest's
// (UPT1_F_LRO): QEMU then lets the tap hand it coalesced segments
// (vmxnet3_update_features → qemu_set_offload tso4/tso6).
func (p *Provider) Capabilities() providers.Capabilities {
	return providers.Capabilities{
		NICModels: []string{"virtio", "e1000", "e1000e", "rtl8139", "vmxnet3"}, NICTuningModels: []string{"virtio"},
		NICQueues: true, NICRXQueueSize: true, HostOffloads: true, GuestOffloads: true, NICRings: true,
		VCPU: true, Memory: true, LinkMTU: p.cfg.Network == "", CloudInit: true,
		OnThisHost: onThisHost(p.cfg.URI), RoutedPairs: p.cfg.routedWhy() == "", RoutedWhy: p.cfg.routedWhy(),
		// A host device lab does not own (link_bridge, link_macvtap)
		// reaches beyond this host; lab sets the guests' addresses there
		// over the management NIC, the spec's when it gives them.
		ExistingNetwork: p.cfg.LinkBridge != "" || p.cfg.LinkMacvtap != "",
		LinkAddresses:   p.cfg.LinkBridge != "" || p.cfg.LinkMacvtap != "",
	}
}

// TemplateID is "sha256:<hex>" of the template's base volume, the bytes
// libvirtd would serve (volumeSum: hashed where the file lies when it
// can, else downloaded), computed once per volume and provider: the
// image a guest boots, whatever its name or path.
func (p *Provider) TemplateID(ctx context.Context, m machine.Machine) (_ string, err error) {
	defer p.explain(&err)
	source := m.Template.Source
	if source == "" {
		return "", fmt.Errorf("template %q has no source", m.Template.Name)
	}
	p.idMu.Lock()
	defer p.idMu.Unlock()
	if id, ok := p.ids[source]; ok {
		return id, nil
	}
	l, err := p.conn()
	if err != nil {
		return "", err
	}
	pool, err := l.StoragePoolLookupByName(p.cfg.Pool)
	if err != nil {
		return "", poolError(p.cfg.URI, p.cfg.Pool, err)
	}
	vol, err := l.StorageVolLookupByName(pool, source)
	if err != nil {
		return "", callErr("StorageVolLookupByName", fmt.Sprintf("%s in pool %s (the template's source)", source, p.cfg.Pool), err)
	}
	// The volume's size in the pool (the file's, for a qcow2 its physical
	// size): what a whole download must bring. Older daemons lack the
	// flag: then only an empty download is caught.
	var size uint64
	if _, _, phys, err := l.StorageVolGetInfoFlags(vol, uint32(golibvirt.StorageVolGetPhysical)); err == nil {
		size = phys
	}
	sum, err := p.volumeSum(ctx, l, vol, size)
	if err != nil {
		return "", err
	}
	id := "sha256:" + sum
	if p.ids == nil {
		p.ids = map[string]string{}
	}
	p.ids[source] = id
	return id, nil
}

// volumeSum is the hex SHA-256 of vol, of size bytes (0: unknown): on a
// qemu+ssh:// host hashed there over lab's login (remotehash.go), on this
// host read from its file, else (or when those cannot read it) through
// libvirt's download.
func (p *Provider) volumeSum(ctx context.Context, l *golibvirt.Libvirt, vol golibvirt.StorageVol, size uint64) (string, error) {
	source := vol.Name
	if u, err := url.Parse(p.cfg.URI); err == nil && sshScheme(u) {
		path, err := volumePath(l, vol)
		if err == nil {
			var sum string
			if sum, err = p.hashOverSSH(ctx, path, size); err == nil {
				return sum, nil
			}
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		trace("%s: hash on the host: %v; downloading it", source, err)
	}
	h := sha256.New()
	// On this host the volume's file is read directly: the same bytes a
	// download brings, without go-libvirt's stream. Its download wedges the
	// connection for good when libvirtd sends an empty stream packet before
	// the end (processIncomingStream takes it for the end and returns; the
	// router then blocks, holding the callback lock, handing the next data
	// packet to a caller that is gone, while requestStream waits for that
	// lock to deregister): seen twice in one TestKVM run, a plan and an
	// apply hung for minutes with libvirtd's data unread on the socket.
	n, err := p.hashVolumeFile(ctx, l, vol, h)
	if err != nil && ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		h.Reset()
		cw := &ctxWriter{ctx: ctx, w: h}
		if err := l.StorageVolDownload(vol, cw, 0, 0, 0); err != nil {
			return "", callErr("StorageVolDownload", source, err)
		}
		n = cw.n
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := checkDownload(source, n, size); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashVolumeFile hashes vol's file into h when libvirtd runs on this host
// and the file can be read here, returning how many bytes it read; an
// error means the download has to do it (a remote daemon, a volume that
// is not a file, a path this process cannot open).
func (p *Provider) hashVolumeFile(ctx context.Context, l *golibvirt.Libvirt, vol golibvirt.StorageVol, h io.Writer) (uint64, error) {
	if !onThisHost(p.cfg.URI) {
		return 0, fmt.Errorf("libvirtd is not on this host")
	}
	path, err := volumePath(l, vol)
	if err != nil {
		return 0, err
	}
	return hashFile(ctx, path, h)
}

// volumePath is the file of vol on the libvirt host (its XML's
// <target><path>); an error for a volume that is not a file.
func volumePath(l *golibvirt.Libvirt, vol golibvirt.StorageVol) (string, error) {
	x, err := l.StorageVolGetXMLDesc(vol, 0)
	if err != nil {
		return "", err
	}
	var v volXML
	if err := xml.Unmarshal([]byte(x), &v); err != nil || !filepath.IsAbs(v.Target.Path) {
		return "", fmt.Errorf("volume %s: no file path in its XML", vol.Name)
	}
	return v.Target.Path, nil
}

// hashFile copies the regular file at path into h until ctx is done.
func hashFile(ctx context.Context, path string, h io.Writer) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }() // read only: a close error changes nothing
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: not a regular file", path)
	}
	n, err := io.Copy(h, &ctxReader{ctx: ctx, r: f})
	return uint64(n), err
}

// ctxReader reads r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// ctxWriter writes a download to w until ctx is done, then only drains
// it. It never fails: go-libvirt wedges the whole connection when an
// incoming stream's writer returns an error (processIncomingStream stops
// reading while its router still holds the callback lock, blocked handing
// it the next packet; see rpc.go), and every later call on it hangs. A
// create whose context ended during the hash then never returned.
// TemplateID reports ctx's error once the stream is over.
// n counts the bytes that reached w.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
	n   uint64
}

func (c *ctxWriter) Write(b []byte) (int, error) {
	if c.ctx.Err() != nil {
		return len(b), nil
	}
	n, err := c.w.Write(b)
	c.n += uint64(n)
	return n, err
}

// checkDownload refuses a template identity computed from less than the
// whole volume: got bytes hashed of a volume of size bytes (0: unknown).
// go-libvirt ends a download without an error when libvirtd sends an empty
// stream packet (processIncomingStream takes it for the end), so a stream
// that failed on the daemon's side could hash nothing and yield the
// SHA-256 of empty input (e3b0c442…) as the template's identity — pinned
// in the lock file, and later reported as drift. The identity is then
// unknown: an error, never a hash.
func checkDownload(volume string, got, size uint64) error {
	switch {
	case got == 0:
		return fmt.Errorf("volume %s: libvirt's download brought no data: its identity is unknown (not hashed)", volume)
	case size > 0 && got != size:
		return fmt.Errorf("volume %s: libvirt's download brought %d of its %d bytes: its identity is unknown (not hashed)", volume, got, size)
	}
	return nil
}

// onThisHost reports whether uri reaches a libvirtd on this machine
// (qemu:///system, qemu+unix:///…): no host part.
func onThisHost(uri string) bool {
	u, err := url.Parse(uri)
	return err == nil && (u.Host == "" || u.Host == "localhost")
}

// HostNotes says that under accel = "tcg" the guests' CPUs are emulated
// (providers.HostNoter), so a published bundle says its figures are far
// below what KVM gives.
func (p *Provider) HostNotes() []string {
	if p.cfg.Accel == "tcg" {
		return []string{"TCG (QEMU emulation), no KVM acceleration: figures are far below what KVM gives"}
	}
	return nil
}
