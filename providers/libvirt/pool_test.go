package libvirt

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// fakePools answers the storage calls of checkPool as libvirtd does for
// the pools and volumes it holds. The errors are libvirt's: the storage
// driver reports VIR_ERR_NO_STORAGE_POOL "no storage pool with matching
// name '%s'" and VIR_ERR_NO_STORAGE_VOL "no storage vol with matching
// name '%s'" (src/storage/storage_driver.c), which virerror.c prefixes
// with "Storage pool not found: " / "Storage volume not found: ".
type fakePools struct {
	state map[string]golibvirt.StoragePoolState // pool name → state
	vols  map[string]bool                       // "pool/volume"
}

func (f fakePools) StoragePoolLookupByName(name string) (golibvirt.StoragePool, error) {
	if _, ok := f.state[name]; !ok {
		return golibvirt.StoragePool{}, golibvirt.Error{Code: uint32(golibvirt.ErrNoStoragePool), Message: "Storage pool not found: no storage pool with matching name '" + name + "'"}
	}
	return golibvirt.StoragePool{Name: name}, nil
}

func (f fakePools) StoragePoolGetInfo(pool golibvirt.StoragePool) (uint8, uint64, uint64, uint64, error) {
	return uint8(f.state[pool.Name]), 1 << 30, 0, 1 << 30, nil
}

func (f fakePools) StorageVolLookupByName(pool golibvirt.StoragePool, name string) (golibvirt.StorageVol, error) {
	if !f.vols[pool.Name+"/"+name] {
		return golibvirt.StorageVol{}, golibvirt.Error{Code: uint32(golibvirt.ErrNoStorageVol), Message: "Storage volume not found: no storage vol with matching name '" + name + "'"}
	}
	return golibvirt.StorageVol{Pool: pool.Name, Name: name}, nil
}

// TestCheckPool: a missing pool fails naming it and the exact virsh
// commands that define, build and start it; a stopped one names
// pool-start; a pool without the template's volume names it and how to
// put it there; a running pool with the volume passes.
func TestCheckPool(t *testing.T) {
	const uri = "qemu:///system"
	f := fakePools{
		state: map[string]golibvirt.StoragePoolState{"lab": golibvirt.StoragePoolRunning, "stopped": golibvirt.StoragePoolInactive},
		vols:  map[string]bool{"lab/base.qcow2": true},
	}
	for _, tc := range []struct {
		name, pool, source string
		want               []string // nil: no error
	}{
		{"running, volume there", "lab", "base.qcow2", nil},
		{"running, no source asked", "lab", "", nil},
		{"fresh libvirtd: no pool default", "default", "base.qcow2", []string{
			`storage pool "default" does not exist at qemu:///system`,
			"virsh -c qemu:///system pool-define-as default dir --target /var/lib/libvirt/images && virsh -c qemu:///system pool-build default && virsh -c qemu:///system pool-start default && virsh -c qemu:///system pool-autostart default",
			"virsh -c qemu:///system pool-refresh default", "virsh -c qemu:///system pool-list --all"}},
		{"another missing pool", "my pool", "", []string{`storage pool "my pool"`, "pool-define-as 'my pool' dir --target '/var/lib/libvirt/pool-my pool'"}},
		{"stopped", "stopped", "base.qcow2", []string{`"stopped" at qemu:///system is defined but not running (inactive)`, "virsh -c qemu:///system pool-start stopped", "pool-autostart stopped"}},
		{"no template volume", "lab", "debian.qcow2", []string{`holds no volume "debian.qcow2"`, "virsh -c qemu:///system pool-refresh lab", "vol-upload --pool lab debian.qcow2 FILE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPool(f, uri, tc.pool, tc.source)
			if tc.want == nil {
				if err != nil {
					t.Errorf("checkPool: %v", err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("checkPool: %v\nwant it to say %q", err, w)
				}
			}
		})
	}
	// Another failure is passed on, naming the call.
	if err := poolError(uri, "lab", errors.New("boom")); err == nil || !strings.Contains(err.Error(), "StoragePoolLookupByName lab: boom") {
		t.Errorf("poolError: %v", err)
	}
}

// A Link against no daemon fails as before, without a pool error (the
// pool is looked at only through a connection).
func TestLinkOfflineNoPoolCheck(t *testing.T) {
	p := New()
	p.dial = offlineDial
	_, err := p.Link(context.Background(), providers.LinkSpec{Address: "pair.p.link", LabID: "x", Name: "x-p"})
	if err == nil || strings.Contains(err.Error(), "storage pool") {
		t.Errorf("Link offline: %v", err)
	}
}

// poolDaemon is a libvirtd on a pipe that knows one storage pool state:
// it answers the handshake go-libvirt makes (REMOTE_PROC_AUTH_LIST with
// REMOTE_AUTH_NONE, REMOTE_PROC_CONNECT_OPEN), CONNECT_CLOSE, and
// STORAGE_POOL_LOOKUP_BY_NAME / STORAGE_POOL_GET_INFO (procedures 84 and
// 87 of remote_protocol.x) for pool "lab" in state, or with
// VIR_ERR_NO_STORAGE_POOL when missing. Any other call gets an error
// reply and is listed in calls, so a Link that went on to make a network
// shows there.
type poolDaemon struct {
	missing bool
	state   uint32
	calls   chan uint32
	// volPath is the file of volume base.qcow2 in the pool ("": none),
	// for STORAGE_VOL_LOOKUP_BY_NAME, _GET_INFO_FLAGS and _GET_XML_DESC
	// (95, 378, 99); its size is volSize.
	volPath string
	volSize uint32
	// more, when set, answers a procedure the switch below does not
	// (ok false: it does not either), given the call's arguments.
	more func(proc uint32, args []byte) (status uint32, payload []byte, ok bool)
	// first is asked before the switch below, for a procedure a test
	// scripts otherwise than it does.
	first func(proc uint32, args []byte) (status uint32, payload []byte, ok bool)
}

func (d *poolDaemon) Dial() (net.Conn, error) {
	srv, cli := net.Pipe()
	go d.serve(srv)
	return cli, nil
}

func (d *poolDaemon) serve(c net.Conn) {
	defer c.Close()
	for {
		head := make([]byte, packetHeaderLen)
		if _, err := io.ReadFull(c, head); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(head)-packetHeaderLen)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		proc, serial := binary.BigEndian.Uint32(head[12:]), binary.BigEndian.Uint32(head[20:])
		var payload []byte
		status := uint32(0)
		switch {
		case d.first != nil && answers(d.first, proc, body, &status, &payload):
		case proc == 6: // node get info: char model[32] (XDR: 4 bytes each), memory (u64), cpus, mhz, nodes, sockets, cores, threads
			payload = append(make([]byte, 32*4), xdrWords(0, 1<<20, 4, 2000, 1, 1, 4, 1)...)
		case proc == 23: // domain lookup by name: no leftover domain (qemu_driver.c, VIR_ERR_NO_DOMAIN)
			status, payload = 1, xdrError(uint32(golibvirt.ErrNoDomain), "Domain not found: no domain with matching name 'x-p-s'")
		case proc == 66: // auth list: one type, REMOTE_AUTH_NONE
			payload = xdrWords(1, 0)
		case proc == 1 || proc == 2: // connect open, close
		case proc == 84 && d.missing:
			status, payload = 1, xdrError(uint32(golibvirt.ErrNoStoragePool), "Storage pool not found: no storage pool with matching name 'lab'")
		case proc == 84: // remote_nonnull_storage_pool: name, uuid[16]
			payload = append(xdrString("lab"), make([]byte, 16)...)
		case proc == 87: // state, capacity, allocation, available (u64 each)
			payload = xdrWords(d.state, 0, 1, 0, 0, 0, 1)
		case proc == 95 && d.volPath != "": // remote_nonnull_storage_vol: pool, name, key
			payload = append(append(xdrString("lab"), xdrString("base.qcow2")...), xdrString(d.volPath)...)
		case proc == 378 && d.volPath != "": // type (file), capacity, allocation (u64 each)
			payload = xdrWords(0, 0, d.volSize, 0, d.volSize)
		case proc == 99 && d.volPath != "": // the volume's XML (storage_vol.rng)
			payload = xdrString("<volume type='file'><name>base.qcow2</name><target><path>" + d.volPath + "</path><format type='qcow2'/></target></volume>")
		case d.more != nil && answers(d.more, proc, body, &status, &payload):
		default:
			d.calls <- proc
			status, payload = 1, xdrError(uint32(golibvirt.ErrInternalError), "poolDaemon: unexpected procedure")
		}
		out := make([]byte, packetHeaderLen, packetHeaderLen+len(payload))
		copy(out, head)
		binary.BigEndian.PutUint32(out, uint32(packetHeaderLen+len(payload)))
		binary.BigEndian.PutUint32(out[16:], msgReply)
		binary.BigEndian.PutUint32(out[20:], serial)
		binary.BigEndian.PutUint32(out[24:], status)
		if _, err := c.Write(append(out, payload...)); err != nil {
			return
		}
	}
}

// answers asks script for proc's reply.
func answers(script func(uint32, []byte) (uint32, []byte, bool), proc uint32, args []byte, status *uint32, payload *[]byte) bool {
	st, pl, ok := script(proc, args)
	if ok {
		*status, *payload = st, pl
	}
	return ok
}

func xdrWords(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.BigEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func xdrString(s string) []byte {
	b := append(xdrWords(uint32(len(s))), s...)
	return append(b, make([]byte, (4-len(s)%4)%4)...)
}

// xdrError is remote_error: code, domain (VIR_FROM_STORAGE, 18), the
// message (an optional string: present), level (VIR_ERR_ERROR, 2) and
// the fields after it, absent.
func xdrError(code uint32, msg string) []byte {
	b := append(xdrWords(code, 18, 1), xdrString(msg)...)
	return append(b, xdrWords(2, 0, 0, 0, 0, 0, 0, 0)...)
}

// An apply's first Link against a daemon whose pool is missing or stopped
// fails with the commands that fix it and makes no network (no call past
// the pool's).
func TestLinkChecksPoolFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    *poolDaemon
		want string
	}{
		{"missing", &poolDaemon{missing: true}, "virsh -c qemu:///system pool-define-as lab dir --target /var/lib/libvirt/pool-lab && virsh -c qemu:///system pool-build lab"},
		{"stopped", &poolDaemon{state: uint32(golibvirt.StoragePoolInactive)}, "virsh -c qemu:///system pool-start lab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.d.calls = make(chan uint32, 16)
			p, d := configure(t, "pool = \"lab\"\naccel = \"tcg\"\ncall_timeout = \"5s\"\n")
			if d.HasErrors() {
				t.Fatal(d)
			}
			p.dial = func(u *url.URL, timeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
				return dialLibvirt(tc.d, u, timeout)
			}
			in, err := p.Link(context.Background(), providers.LinkSpec{Address: "pair.p.link", LabID: "x", Name: "x-p"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pair.p.link: ") {
				t.Errorf("Link: %v\nwant it to say %q", err, tc.want)
			}
			if in.Address != "" {
				t.Errorf("Link refused before making anything returned an instance to record: %+v", in)
			}
			_ = p.Close(context.Background())
			close(tc.d.calls)
			for proc := range tc.d.calls {
				t.Errorf("Link went on to call procedure %d", proc)
			}
		})
	}
}

// With cpu_pin {} the plan dials, and then looks at the pool too: a
// missing one fails the plan naming it.
func TestCheckTemplateWithPinChecksPool(t *testing.T) {
	d := &poolDaemon{missing: true, calls: make(chan uint32, 16)}
	p, diags := configure(t, "pool = \"lab\"\naccel = \"tcg\"\ncall_timeout = \"5s\"\ncpu_pin {\n  server = \"0\"\n}\n")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p.dial = func(u *url.URL, timeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
		return dialLibvirt(d, u, timeout)
	}
	err := p.CheckTemplate(context.Background(), testMachine())
	if err == nil || !strings.Contains(err.Error(), `storage pool "lab" does not exist`) {
		t.Errorf("plan: %v, want the missing pool named", err)
	}
	_ = p.Close(context.Background())
	close(d.calls)
	for proc := range d.calls {
		t.Errorf("plan called procedure %d", proc)
	}
}

// A create against a daemon without the pool is refused after the
// leftover check, before any volume or domain: nothing to record.
func TestCreateChecksPool(t *testing.T) {
	d := &poolDaemon{missing: true, calls: make(chan uint32, 16)}
	p, diags := configure(t, "pool = \"lab\"\naccel = \"tcg\"\ncall_timeout = \"5s\"\n")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p.dial = func(u *url.URL, timeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
		return dialLibvirt(d, u, timeout)
	}
	m := testMachine()
	m.Link = machine.Instance{Address: "pair.p.link", Kind: "link", Name: "x-p", Attrs: map[string]string{attrNetwork: "lab-x-p", attrOwned: "true"}}
	in, err := p.Create(context.Background(), m)
	if err == nil || !strings.Contains(err.Error(), `pair.p.server: check pool: storage pool "lab" does not exist`) || !strings.Contains(err.Error(), "pool-define-as lab") {
		t.Errorf("create: %v, want the missing pool and its commands", err)
	}
	if in.Address != "" {
		t.Errorf("create refused before making anything returned an instance to record: %+v", in)
	}
	_ = p.Close(context.Background())
	close(d.calls)
	for proc := range d.calls {
		t.Errorf("create called procedure %d", proc)
	}
}
