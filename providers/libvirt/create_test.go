package libvirt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/steps"
)

// Procedures of libvirt's src/remote/remote_protocol.x the create steps
// call, beyond those poolDaemon answers.
const (
	procDomainCreate        = 9   // REMOTE_PROC_DOMAIN_CREATE
	procDomainDefineXML     = 11  // REMOTE_PROC_DOMAIN_DEFINE_XML
	procDomainLookupByName  = 23  // REMOTE_PROC_DOMAIN_LOOKUP_BY_NAME
	procStorageVolCreateXML = 93  // REMOTE_PROC_STORAGE_VOL_CREATE_XML
	procStorageVolLookup    = 95  // REMOTE_PROC_STORAGE_VOL_LOOKUP_BY_NAME
	procStorageVolGetInfo   = 98  // REMOTE_PROC_STORAGE_VOL_GET_INFO
	procStorageVolGetXML    = 99  // REMOTE_PROC_STORAGE_VOL_GET_XML_DESC
	procDomainUndefineFlags = 231 // REMOTE_PROC_DOMAIN_UNDEFINE_FLAGS
	procDomainGetMetadata   = 265 // REMOTE_PROC_DOMAIN_GET_METADATA
)

// createDaemon scripts the libvirtd a create talks to, step by step. Its
// replies are remote_protocol.x's: remote_nonnull_domain is name, uuid[16],
// id; remote_nonnull_storage_vol is pool, name, key; vol get info is type,
// capacity, allocation; the errors are the ones libvirt's drivers raise
// (virerror.c's messages).
type createDaemon struct {
	foreignDomain bool // a domain named like the machine, without lab's metadata
	overlayBefore bool // a volume of the overlay's name before the create
	overlayRace   bool // one made between check pool and make disks
	defineErr     bool
	createVolErr  bool // the overlay cannot be made (not for its name)
	startErr      bool
	undefineErr   bool
	cancel        context.CancelFunc
	cancelAfter   uint32 // the procedure after whose reply cancel is called

	mu        sync.Mutex
	procs     []uint32
	overlayed int // look-ups of the overlay's name so far
}

func (d *createDaemon) called(proc uint32) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.procs, proc)
}

// xdrNextString reads an XDR string off b: the string and what follows.
func xdrNextString(b []byte) (string, []byte) {
	n := int(binary.BigEndian.Uint32(b))
	return string(b[4 : 4+n]), b[4+n+(4-n%4)%4:]
}

func (d *createDaemon) answer(proc uint32, args []byte) (uint32, []byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.procs = append(d.procs, proc)
	if proc == d.cancelAfter && d.cancel != nil {
		defer d.cancel()
	}
	dom := append(append(xdrString("x-p-s"), make([]byte, 15)...), 7)
	dom = append(dom, xdrWords(0)...)
	fail := func(code golibvirt.ErrorNumber, msg string) (uint32, []byte, bool) {
		return 1, xdrError(uint32(code), msg), true
	}
	switch proc {
	case procDomainLookupByName:
		if d.foreignDomain {
			return 0, dom, true
		}
	case procDomainGetMetadata: // domain_conf.c virDomainObjGetMetadata
		return fail(golibvirt.ErrNoDomainMetadata, "metadata not found: Requested metadata element is not present")
	case procStorageVolLookup:
		_, rest := xdrNextString(args)
		name, _ := xdrNextString(rest[16:])
		if name != volumeName("x-p-s") {
			return 0, nil, false // base.qcow2: poolDaemon's
		}
		d.overlayed++
		if d.overlayBefore || (d.overlayRace && d.overlayed > 1) {
			return 0, append(append(xdrString("lab"), xdrString(name)...), xdrString("/pool/"+name)...), true
		}
		return fail(golibvirt.ErrNoStorageVol, "Storage volume not found: no storage vol with matching name '"+name+"'")
	case procDomainDefineXML:
		if d.defineErr {
			return fail(golibvirt.ErrXMLError, "XML error: missing domain type attribute")
		}
		return 0, dom, true
	case procStorageVolGetInfo:
		return 0, xdrWords(0, 0, 1<<20, 0, 1<<20), true
	case procStorageVolCreateXML:
		if d.overlayRace { // storage_driver.c storageVolCreateXML
			return fail(golibvirt.ErrStorageVolExist, "storage volume 'x-p-s.qcow2' exists already")
		}
		if d.createVolErr {
			return fail(golibvirt.ErrInternalError, "internal error: Child process (qemu-img create) unexpected exit status 1")
		}
		return 0, append(append(xdrString("lab"), xdrString("x-p-s.qcow2")...), xdrString("/pool/x-p-s.qcow2")...), true
	case procDomainCreate:
		if d.startErr { // qemu_process.c, a QEMU that exits at start
			return fail(golibvirt.ErrInternalError, "internal error: qemu unexpectedly closed the monitor")
		}
		return 0, nil, true
	case procDomainUndefineFlags:
		if d.undefineErr {
			return fail(golibvirt.ErrOperationInvalid, "Requested operation is not valid: domain is locked")
		}
		return 0, nil, true
	}
	return 0, nil, false
}

// TestCreateStepsOnDaemon runs Create's I/O steps against a scripted
// libvirtd: the step a failure stops at is named, what it leaves is
// recorded or not as the engine needs, and define's undo runs exactly
// when a later step refuses (nothing recorded would remove the domain).
func TestCreateStepsOnDaemon(t *testing.T) {
	for _, tc := range []struct {
		name      string
		d         *createDaemon
		step      string
		want      string
		notOwned  bool
		canceled  bool
		recorded  bool // Create returns an Instance naming the domain
		undefined bool // DomainUndefineFlags was called
		notCalled uint32
	}{
		{name: "a domain of the name, not lab's: clear leftover refuses", d: &createDaemon{foreignDomain: true},
			step: "clear leftover", want: "domain x-p-s", notOwned: true, notCalled: procDomainDefineXML},
		{name: "a volume of the overlay's name: check pool refuses", d: &createDaemon{overlayBefore: true},
			step: "check pool", want: "volume lab/x-p-s.qcow2", notOwned: true, notCalled: procDomainDefineXML},
		{name: "define fails", d: &createDaemon{defineErr: true},
			step: "define domain", want: "missing domain type", recorded: true, notCalled: procStorageVolCreateXML},
		{name: "the overlay's name taken since check pool: make disks refuses, define undone", d: &createDaemon{overlayRace: true},
			step: "make disks", want: "volume lab/x-p-s.qcow2", notOwned: true, undefined: true, notCalled: procDomainCreate},
		{name: "and the undo fails: the domain is recorded, not refused", d: &createDaemon{overlayRace: true, undefineErr: true},
			step: "make disks", want: "(and undoing: define domain: libvirt DomainUndefineFlags x-p-s: Requested operation is not valid",
			recorded: true, undefined: true, notCalled: procDomainCreate},
		{name: "the overlay fails otherwise: recorded, define not undone", d: &createDaemon{createVolErr: true},
			step: "make disks", want: "qemu-img create", recorded: true, notCalled: procDomainCreate},
		{name: "start fails: recorded", d: &createDaemon{startErr: true},
			step: "start domain", want: "qemu unexpectedly closed the monitor", recorded: true, notCalled: procDomainUndefineFlags},
		{name: "cancelled after define: no overlay, recorded for teardown", d: &createDaemon{cancelAfter: procDomainDefineXML},
			step: "make disks", want: "context canceled", canceled: true, recorded: true, notCalled: procStorageVolCreateXML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			d := tc.d
			d.cancel = cancel
			pd := &poolDaemon{state: uint32(golibvirt.StoragePoolRunning), volPath: "/pool/base.qcow2", volSize: 1 << 20,
				calls: make(chan uint32, 64), first: d.answer}
			p, diags := configure(t, "pool = \"lab\"\naccel = \"tcg\"\ncall_timeout = \"5s\"\n")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p.dial = func(u *url.URL, timeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
				return dialLibvirt(pd, u, timeout)
			}
			m := testMachine()
			m.Link = machine.Instance{Address: "pair.p.link", Kind: "link", Name: "x-p", Attrs: map[string]string{attrNetwork: "lab-x-p", attrOwned: "true"}}
			in, err := p.Create(ctx, m)
			_ = p.Close(context.Background())
			close(pd.calls)
			for proc := range pd.calls {
				t.Errorf("create called procedure %d, which the script does not answer", proc)
			}
			var se *steps.Error
			if !errors.As(err, &se) || se.Step != tc.step || se.Machine != m.Address || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("create: %v\nwant step %q of %s, saying %q", err, tc.step, m.Address, tc.want)
			}
			if got := errors.Is(err, providers.ErrNotOwned); got != tc.notOwned {
				t.Errorf("refused (ErrNotOwned): %v, want %v", got, tc.notOwned)
			}
			if got := errors.Is(err, context.Canceled); got != tc.canceled {
				t.Errorf("cancelled: %v, want %v", got, tc.canceled)
			}
			if got := in.Name == m.Name && in.Address == m.Address; got != tc.recorded {
				t.Errorf("returned %+v to record: %v, want %v", in, got, tc.recorded)
			}
			if got := d.called(procDomainUndefineFlags); got != tc.undefined {
				t.Errorf("undefined the domain: %v, want %v", got, tc.undefined)
			}
			if tc.notCalled != 0 && d.called(tc.notCalled) {
				t.Errorf("went on to call procedure %d", tc.notCalled)
			}
		})
	}
}

// TestCreateStepsWithoutIO runs the four steps before connect (check
// spec, place link, place management NIC, size and login): each refuses
// what it cannot make, naming itself, or produces what the steps after
// it use.
func TestCreateStepsWithoutIO(t *testing.T) {
	network := machine.Instance{Address: "pair.p.link", Attrs: map[string]string{attrNetwork: "lab-x-p", attrOwned: "true"}}
	device := machine.Instance{Address: "pair.p.link", Attrs: map[string]string{attrLinkType: linkTypeBridge, attrLinkDev: "br0", "subnet": "198.18.5.0/24"}}
	for _, tc := range []struct {
		name, cfg string
		edit      func(m *machine.Machine)
		step      string // "" for none failing
		want      string // the error, or the products
	}{
		{name: "template without source", edit: func(m *machine.Machine) { m.Template.Source = "" },
			step: "check spec", want: `template "debian" has no source`},
		{name: "NIC model unknown", edit: func(m *machine.Machine) { m.NIC.Model = "ne2k_pci" },
			step: "check spec", want: `nic model "ne2k_pci": the libvirt provider knows virtio`},
		{name: "tx_queue_size (a saved plan)", edit: func(m *machine.Machine) { m.NIC.TXQueueSize = 1024 },
			step: "check spec", want: "nic tx_queue_size: libvirt honours it only for vhost-user"},
		{name: "offload bit unknown", edit: func(m *machine.Machine) { m.NIC.Host = map[string]bool{"lro": false} },
			step: "check spec", want: `nic host offload "lro" is not one libvirt knows`},
		{name: "no network", edit: func(m *machine.Machine) { m.Link = machine.Instance{} },
			step: "place link", want: "no network: the pair's link was not created"},
		{name: "device link without subnet", edit: func(m *machine.Machine) {
			m.Link = machine.Instance{Attrs: map[string]string{attrLinkType: linkTypeBridge, attrLinkDev: "br0"}}
		}, step: "place link", want: "the link on br0 records no subnet"},
		{name: "device link without management", edit: func(m *machine.Machine) { m.Link = device },
			step: "place management NIC", want: "the link is on br0, which lab does not own"},
		{name: "management lab, link made without one", cfg: "management = \"lab\"\n",
			step: "place management NIC", want: "no management network: the pair's link was made without one"},
		{name: "defaults", want: "model=virtio network=lab-x-p mgmt= vcpu=1 mem=1024 ssh=true"},
		{name: "device, management, sized", cfg: "management = \"mgmt0\"\n", edit: func(m *machine.Machine) {
			m.Link, m.VCPU, m.MemoryMiB, m.NIC.Model = device, 4, 4096, "e1000e"
		}, want: "model=e1000e network= mgmt=mgmt0 vcpu=4 mem=4096 ssh=true static=198.18.5.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := configure(t, "pool = \"lab\"\naccel = \"tcg\"\n"+tc.cfg)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			m := testMachine()
			m.Link = network
			if tc.edit != nil {
				tc.edit(&m)
			}
			c := newCreation(p, m)
			err := steps.Run(context.Background(), m.Address, c.createSteps()[:4])
			if tc.step != "" {
				var se *steps.Error
				if !errors.As(err, &se) || se.Step != tc.step || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%v\nwant step %q saying %q", err, tc.step, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("model=%s network=%s mgmt=%s vcpu=%d mem=%d ssh=%v", c.model, c.network, c.mgmtNet, c.vcpu, c.mem, c.in.Endpoint.SSH != nil)
			if c.staticAddr != "" {
				got += " static=" + c.staticAddr
			}
			if got != tc.want {
				t.Errorf("produced %s\nwant     %s", got, tc.want)
			}
		})
	}
}
