package libvirt

import (
	"context"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/providers"
)

// Attrs a machine instance carries; how
// the engine reaches it is in its Endpoint.
const (
	attrMAC     = "mac"    // the benchmark NIC's MAC
	attrVolume  = "volume" // the overlay volume
	attrPool    = "pool"
	attrNetwork = "network"
	attrVCPU    = "vcpu"
	attrBridge  = "bridge"
	attrOwned   = "owned" // "true" on a link lab created
	attrLabID   = "lab_id"
	// attrGuestUptime is the guest's /proc/uptime at lab's first login:
	// its own boot, against "ready_s" (domain start → SSH ready).
	attrGuestUptime = "guest_uptime_s"
	// attrConsoleLog is the file on the libvirt host with the guest's
	// serial console output (kept after the guest is deleted, like
	// libvirt's own QEMU log beside it).
	attrConsoleLog = "console_log"
	// attrVCPUPin is each vCPU's host cpuset, in vCPU order, and
	// attrEmulatorPin that of QEMU's own threads (cpu_pin {}).
	attrVCPUPin     = "vcpupin"
	attrEmulatorPin = "emulatorpin"
	attrMachine     = "machine" // the QEMU machine type
	// attrStaticAddr is the address/prefix lab sets on the benchmark NIC
	// over SSH when the link is a host device (no DHCP there).
	attrStaticAddr = "static_addr"
	// attrRXQueueSize is the benchmark NIC's host-side RX ring size
	// (<driver rx_queue_size>), when the spec set one.
	attrRXQueueSize = "rx_queue_size"
	// The management NIC (management = …): its network (on a link: the
	// pair's; "true" in attrMgmtOwned when lab made it), MAC and address.
	attrMgmtNetwork = "mgmt_network"
	attrMgmtOwned   = "mgmt_owned"
	attrMgmtMAC     = "mgmt_mac"
	attrMgmtAddr    = "mgmt_addr"
	// attrSeed is the cloud-init seed volume (cloud_init {} templates).
	attrSeed = "seed"
)

// consoleLogDir is where the serial console logs go on the libvirt host:
// libvirt's QEMU log directory, which virtlogd may write.
const consoleLogDir = "/var/log/libvirt/qemu"

// volumeName is the overlay of a machine; Delete derives it from the name.
func volumeName(machine string) string { return machine + ".qcow2" }

// Create makes one guest: overlay, domain, start, lease, SSH.
func (p *Provider) Create(ctx context.Context, m providers.Machine) (_ providers.Instance, err error) {
	defer p.explain(&err)
	o := m.Owner()
	in := providers.Instance{Address: m.Address, Provider: TypeName, Kind: "machine", Name: m.Name, Owner: o,
		Attrs: map[string]string{attrLabID: m.LabID, attrPool: p.cfg.Pool, attrVolume: volumeName(m.Name)}}
	if m.Template.Source == "" {
		return in, fmt.Errorf("%s: template %q has no source (the base volume's name in pool %q)", m.Address, m.Template.Name, p.cfg.Pool)
	}
	if err := p.checkAccel(); err != nil {
		// Before anything is made: nothing to record.
		return providers.Instance{}, fmt.Errorf("%s: %w", m.Address, err)
	}
	model := m.NIC.Model
	if model == "" {
		model = "virtio"
	}
	switch model {
	case "virtio", "e1000", "e1000e", "rtl8139":
	default:
		return in, fmt.Errorf("%s: nic model %q: the libvirt provider knows virtio, e1000, e1000e and rtl8139", m.Address, model)
	}
	host, gbits, err := splitOffloads(m.NIC.Host)
	if err != nil {
		return in, fmt.Errorf("%s: %w", m.Address, err)
	}
	linkType, linkDev := m.Link.Attrs[attrLinkType], m.Link.Attrs[attrLinkDev]
	network := m.Link.Attrs[attrNetwork]
	if network == "" && linkType == "" {
		network = p.cfg.Network
	}
	var staticAddr string
	switch {
	case linkType != "":
		// A host device: no DHCP there; the address is set over SSH.
		in.Attrs[attrLinkType], in.Attrs[attrLinkDev] = linkType, linkDev
		sn, err := netip.ParsePrefix(m.Link.Attrs["subnet"])
		if err != nil || !sn.Addr().Is4() {
			return in, fmt.Errorf("%s: the link on %s records no subnet (%q): apply again to remake it", m.Address, linkDev, m.Link.Attrs["subnet"])
		}
		a4 := sn.Addr().As4()
		staticAddr = linkHostAddr([3]byte{a4[0], a4[1], a4[2]}, m.Role)
		in.Attrs[attrStaticAddr] = staticAddr + "/24"
	case network == "":
		return in, fmt.Errorf("%s: no network: the pair's link was not created and the provider names none", m.Address)
	default:
		in.Attrs[attrNetwork] = network
	}
	mac := macFor(m.LabID, m.Name)
	in.Attrs[attrMAC] = mac
	mgmtNet, mgmtMAC := m.Link.Attrs[attrMgmtNetwork], ""
	if mgmtNet == "" && p.cfg.Management != "" && p.cfg.Management != ManagementLab {
		mgmtNet = p.cfg.Management
	}
	if linkType != "" && mgmtNet == "" {
		return in, fmt.Errorf("%s: the link is on %s, which lab does not own: a management NIC is needed to set the guest's link address (set management)", m.Address, linkDev)
	}
	if mgmtNet == "" && p.cfg.Management == ManagementLab {
		return in, fmt.Errorf("%s: no management network: the pair's link was made without one (apply again to remake it)", m.Address)
	}
	if mgmtNet != "" {
		mgmtMAC = macFor(m.LabID, m.Name+"\x00management")
		in.Attrs[attrMgmtNetwork], in.Attrs[attrMgmtMAC] = mgmtNet, mgmtMAC
	}
	vcpu, mem := m.VCPU, m.MemoryMiB
	if vcpu <= 0 {
		vcpu = 1
	}
	if mem <= 0 {
		mem = 1024
	}
	in.Attrs[attrVCPU] = strconv.Itoa(vcpu)
	var login ssh.Login
	if s := m.Template.SSH; s != nil {
		login = *s
	}
	in.Endpoint = providers.SSHEndpoint("", login)
	var pubKey string
	if m.Template.CloudInit != nil {
		if pubKey, err = publicKey(login); err != nil {
			return in, fmt.Errorf("%s: template %q: %w", m.Address, m.Template.Name, err)
		}
		in.Attrs[attrSeed] = seedVolumeName(m.Name)
	}

	t0 := time.Now()
	l, err := p.conn()
	if err != nil {
		return in, err
	}
	trace("%s conn %v", m.Name, time.Since(t0))
	// A leftover of an interrupted create under the same name goes first
	// (domain and, through its metadata, its volume); a domain that is not
	// this owner's is refused, and so is a volume of the overlay's name
	// that no domain of this owner names. A refusal returns an instance
	// without an address: nothing of lab's exists to record.
	if err := p.deleteMachine(ctx, l, in); err != nil {
		if errors.Is(err, providers.ErrNotOwned) {
			return providers.Instance{}, fmt.Errorf("%s: %w", m.Address, err)
		}
		return in, fmt.Errorf("%s: remove leftover: %w", m.Address, err)
	}
	pool, err := l.StoragePoolLookupByName(p.cfg.Pool)
	if err != nil {
		return in, callErr("StoragePoolLookupByName", p.cfg.Pool, err)
	}
	if _, err := l.StorageVolLookupByName(pool, volumeName(m.Name)); err == nil {
		return providers.Instance{}, fmt.Errorf("%s: %w", m.Address, notOwned(o, "volume", p.cfg.Pool+"/"+volumeName(m.Name), ""))
	} else if !isNotFound(err) {
		return in, callErr("StorageVolLookupByName", volumeName(m.Name), err)
	}
	if pubKey != "" {
		if _, err := l.StorageVolLookupByName(pool, seedVolumeName(m.Name)); err == nil {
			return providers.Instance{}, fmt.Errorf("%s: %w", m.Address, notOwned(o, "volume", p.cfg.Pool+"/"+seedVolumeName(m.Name), ""))
		} else if !isNotFound(err) {
			return in, callErr("StorageVolLookupByName", seedVolumeName(m.Name), err)
		}
	}
	trace("%s leftover+pool %v", m.Name, time.Since(t0))
	ds := domainSpec{Name: m.Name, Type: "kvm", Emulator: p.cfg.Emulator, Machine: p.cfg.Machine, VCPU: vcpu, MemoryMiB: mem,
		Pool: p.cfg.Pool, Volume: volumeName(m.Name),
		Network: network, LinkType: linkType, LinkDev: linkDev, MAC: mac, Model: model, Driver: p.cfg.NICDriver, Queues: m.NIC.Queues,
		RXQueueSize: m.NIC.RXQueueSize, MTU: linkMTU(m.Link), Host: host, Guest: gbits,
		MgmtNetwork: mgmtNet, MgmtMAC: mgmtMAC,
		Meta: labMeta{LabID: m.LabID, Address: m.Address, Role: m.Role, Volume: volumeName(m.Name), Pool: p.cfg.Pool, Tag: o.Tag(m.Address)}}
	if p.cfg.Accel == "tcg" {
		ds.Type = "qemu"
	}
	in.Attrs[attrMachine] = ds.Machine
	if m.NIC.TXQueueSize > 0 {
		// The plan refuses it first (Capabilities); this guards a saved plan.
		return in, fmt.Errorf("%s: nic tx_queue_size: libvirt honours it only for vhost-user interfaces (formatdomain, interface <driver>), lab's are tap devices", m.Address)
	}
	if ds.RXQueueSize > 0 {
		in.Attrs[attrRXQueueSize] = fmt.Sprint(ds.RXQueueSize)
	}
	if pubKey != "" {
		ds.Seed, ds.Meta.Seed = seedVolumeName(m.Name), seedVolumeName(m.Name)
	}
	if err := p.pinDomain(&ds, &in, m.Role); err != nil {
		return in, fmt.Errorf("%s: %w", m.Address, err)
	}
	ds.ConsoleLog = consoleLogDir + "/" + m.Name + "-console.log"
	in.Attrs[attrConsoleLog] = ds.ConsoleLog
	if p.cfg.Kernel != "" {
		if ds.Kernel, err = p.resolveFile(l, pool, p.cfg.Kernel); err != nil {
			return in, fmt.Errorf("%s: kernel: %w", m.Address, err)
		}
		if p.cfg.Initrd != "" {
			if ds.Initrd, err = p.resolveFile(l, pool, p.cfg.Initrd); err != nil {
				return in, fmt.Errorf("%s: initrd: %w", m.Address, err)
			}
		}
		ds.Cmdline = p.cfg.Cmdline
	}
	x, err := domainXML(ds)
	if err != nil {
		return in, fmt.Errorf("%s: %w", m.Address, err)
	}
	// The domain first: its metadata is what proves the volume lab's.
	dom, err := l.DomainDefineXML(x)
	if err != nil {
		return in, callErr("DomainDefineXML", m.Name, err)
	}
	in.ID = uuidString(dom.UUID)
	trace("%s define %v", m.Name, time.Since(t0))
	faultAt(faultAfterDefine)
	if err := p.makeOverlay(l, pool, m.Template.Source, volumeName(m.Name)); err != nil {
		if _, lerr := l.StorageVolLookupByName(pool, volumeName(m.Name)); lerr == nil {
			// Someone made a volume of this name since the check above: it
			// is not lab's, and the domain naming it must not stay.
			if uerr := l.DomainUndefineFlags(dom, 0); uerr != nil {
				return in, fmt.Errorf("%s: %w (and undefining domain %s: %v)", m.Address, err, m.Name, uerr)
			}
			return providers.Instance{}, fmt.Errorf("%s: %w", m.Address, notOwned(o, "volume", p.cfg.Pool+"/"+volumeName(m.Name), ""))
		}
		return in, fmt.Errorf("%s: %w", m.Address, err)
	}
	trace("%s overlay %v", m.Name, time.Since(t0))
	faultAt(faultAfterOverlay)
	if pubKey != "" {
		nics := []seedNIC{{"link", mac}}
		if mgmtNet != "" {
			nics = []seedNIC{{"mgmt", mgmtMAC}, {"link", mac}}
		}
		if linkType != "" {
			nics = nics[:1] // no DHCP on a host device: lab sets the address
		}
		if err := p.writeSeed(l, pool, m, m.Name+"-"+in.ID, login, pubKey, nics); err != nil {
			return in, fmt.Errorf("%s: cloud-init seed: %w", m.Address, err)
		}
		trace("%s seed %v", m.Name, time.Since(t0))
	}
	if err := l.DomainCreate(dom); err != nil {
		return in, callErr("DomainCreate", m.Name, err)
	}

	trace("%s define+start %v", m.Name, time.Since(t0))
	// The template's identity hashes the whole base volume (a second or
	// more, streamed through libvirtd): it is only recorded, so it runs
	// while the guest boots, after the domain started (streamed alongside
	// the define and start, it slowed those by up to a second).
	hctx, stopHash := context.WithCancel(ctx)
	defer stopHash()
	idc := make(chan templateID, 1)
	go func() {
		id, err := p.TemplateID(hctx, m)
		idc <- templateID{id, err}
	}()
	start := time.Now()
	// While the guest boots, a watch ends the waits at once when its
	// domain stops or its network goes away.
	watched := network
	if linkType != "" {
		watched = mgmtNet
	}
	wctx, stopWatch := p.watchBoot(ctx, l, m.Name, watched)
	defer stopWatch()
	// With a management NIC, SSH goes to its address and the benchmark
	// runs to the link's; without, the link's address serves both.
	sshHost := ""
	if mgmtNet != "" {
		if sshHost, err = p.waitAddress(wctx, l, dom, mgmtNet, mgmtMAC); err != nil {
			return in, fmt.Errorf("%s (domain %s, management NIC): %w%s", m.Address, m.Name, bootErr(ctx, wctx, err), bootHint(ctx, m.Name))
		}
		in.Attrs[attrMgmtAddr] = sshHost
	}
	addr := staticAddr
	if linkType == "" {
		if addr, err = p.waitAddress(wctx, l, dom, network, mac); err != nil {
			return in, fmt.Errorf("%s (domain %s): %w%s", m.Address, m.Name, bootErr(ctx, wctx, err), bootHint(ctx, m.Name))
		}
	}
	if sshHost == "" {
		sshHost = addr
	}
	in.Endpoint.Addr, in.Endpoint.SSHHost = addr, sshHost
	trace("%s lease %s %v", m.Name, addr, time.Since(t0))
	in.Attrs["lease_s"] = strconv.FormatFloat(time.Since(start).Seconds(), 'f', 1, 64)
	if err := p.waitSSH(wctx, &in, m.Template, start); err != nil {
		return in, fmt.Errorf("%s (domain %s, %s): %w%s", m.Address, m.Name, sshHost, bootErr(ctx, wctx, err), bootHint(ctx, m.Name))
	}
	in.Attrs["ready_s"] = strconv.FormatFloat(time.Since(start).Seconds(), 'f', 1, 64)
	id := <-idc
	if id.err != nil {
		return in, fmt.Errorf("%s: template identity: %w", m.Address, id.err)
	}
	in.Endpoint.TemplateID = id.id
	trace("%s template identity %v", m.Name, time.Since(t0))
	return in, nil
}

// templateID is what TemplateID returned.
type templateID struct {
	id  string
	err error
}

// linkMTU is the MTU of the pair's link, set on the guest's NIC too (the
// bridge's MTU only bounds what the tap may carry).
func linkMTU(link providers.Instance) int {
	n, _ := strconv.Atoi(link.Attrs["mtu"])
	return n
}

type volXML struct {
	Target struct {
		Path   string `xml:"path"`
		Format struct {
			Type string `xml:"type,attr"`
		} `xml:"format"`
	} `xml:"target"`
}

// makeOverlay creates the guest's disk from the template volume: a qcow2
// overlay on it, or a full copy with full_clone.
func (p *Provider) makeOverlay(l *golibvirt.Libvirt, pool golibvirt.StoragePool, source, name string) error {
	base, err := l.StorageVolLookupByName(pool, source)
	if err != nil {
		return callErr("StorageVolLookupByName", fmt.Sprintf("%s in pool %s (the template's source)", source, p.cfg.Pool), err)
	}
	_, capacity, _, err := l.StorageVolGetInfo(base)
	if err != nil {
		return callErr("StorageVolGetInfo", source, err)
	}
	bx, err := l.StorageVolGetXMLDesc(base, 0)
	if err != nil {
		return callErr("StorageVolGetXMLDesc", source, err)
	}
	var bv volXML
	if err := xml.Unmarshal([]byte(bx), &bv); err != nil {
		return fmt.Errorf("volume %s: parse XML: %w", source, err)
	}
	format := bv.Target.Format.Type
	if format == "" {
		format = "raw"
	}
	if p.cfg.FullClone {
		if _, err := l.StorageVolCreateXMLFrom(pool, volumeXML(name, capacity, "qcow2", "", ""), base, 0); err != nil {
			return callErr("StorageVolCreateXMLFrom", name, err)
		}
		return nil
	}
	if _, err := l.StorageVolCreateXML(pool, volumeXML(name, capacity, "qcow2", bv.Target.Path, format), 0); err != nil {
		return callErr("StorageVolCreateXML", name, err)
	}
	return nil
}

// resolveFile turns a kernel/initrd setting into a path on the libvirt
// host: absolute paths stay, bare names are volumes in the pool.
func (p *Provider) resolveFile(l *golibvirt.Libvirt, pool golibvirt.StoragePool, name string) (string, error) {
	if path.IsAbs(name) {
		return name, nil
	}
	v, err := l.StorageVolLookupByName(pool, name)
	if err != nil {
		return "", callErr("StorageVolLookupByName", fmt.Sprintf("%s in pool %s", name, p.cfg.Pool), err)
	}
	s, err := l.StorageVolGetPath(v)
	if err != nil {
		return "", callErr("StorageVolGetPath", name, err)
	}
	return s, nil
}

// leasePoll is the interval between lease look-ups while a guest boots:
// libvirt has no lease event, and every poll's delay adds to the boot.
const leasePoll = 100 * time.Millisecond

// waitAddress waits for the guest's IPv4 address: the network's DHCP lease
// for the MAC first, the guest agent as a fallback; it fails early when the
// domain stops running.
func (p *Provider) waitAddress(ctx context.Context, l *golibvirt.Libvirt, dom golibvirt.Domain, network, mac string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.leaseTimeout)
	defer cancel()
	net, err := l.NetworkLookupByName(network)
	if isNotFound(err) {
		return "", fmt.Errorf("network %s is gone: %w", network, callErr("NetworkLookupByName", network, err))
	} else if err != nil {
		return "", callErr("NetworkLookupByName", network, err)
	}
	var lastErr error
	for {
		leases, _, err := l.NetworkGetDhcpLeases(net, golibvirt.OptString{mac}, 1, 0)
		if isNotFound(err) {
			// Destroyed under the guest: no lease will ever come.
			return "", fmt.Errorf("network %s is gone: %w", network, callErr("NetworkGetDhcpLeases", network, err))
		}
		if err == nil {
			for _, le := range leases {
				if len(le.Mac) > 0 && strings.EqualFold(le.Mac[0], mac) && le.Type == 0 && le.Ipaddr != "" {
					return le.Ipaddr, nil
				}
			}
		} else {
			lastErr = callErr("NetworkGetDhcpLeases", network, err)
		}
		if ifs, err := l.DomainInterfaceAddresses(dom, uint32(golibvirt.DomainInterfaceAddressesSrcAgent), 0); err == nil {
			for _, ifc := range ifs {
				if len(ifc.Hwaddr) == 0 || !strings.EqualFold(ifc.Hwaddr[0], mac) {
					continue
				}
				for _, a := range ifc.Addrs {
					if a.Type == 0 && a.Addr != "" {
						return a.Addr, nil
					}
				}
			}
		}
		state, _, err := l.DomainGetState(dom, 0)
		if err != nil {
			return "", callErr("DomainGetState", dom.Name, err)
		}
		if golibvirt.DomainState(state) != golibvirt.DomainRunning {
			return "", fmt.Errorf("domain %s %s before it got an address", dom.Name, stateName(state))
		}
		if err := sleep(ctx, leasePoll); err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				msg := fmt.Sprintf("no DHCP lease for %s on network %s within lease_timeout %v (and no address from the guest agent)", mac, network, p.leaseTimeout)
				if lastErr != nil {
					msg += ": " + lastErr.Error()
				}
				return "", errors.New(msg)
			}
			return "", fmt.Errorf("waiting for an address: %w", err)
		}
	}
}

// Read reports whether the domain still exists and runs.
func (p *Provider) Read(ctx context.Context, in providers.Instance) (_ providers.Instance, _ bool, err error) {
	defer p.explain(&err)
	l, err := p.conn()
	if err != nil {
		return in, false, err
	}
	if in.Kind == "link" && in.Attrs[attrLinkType] != "" {
		return p.readDeviceLink(l, in)
	}
	if in.Kind == "link" {
		name := in.Attrs[attrNetwork]
		if name == "" {
			name = networkName(in.Name)
		}
		n, err := l.NetworkLookupByName(name)
		if isNotFound(err) {
			return in, false, nil
		} else if err != nil {
			return in, false, callErr("NetworkLookupByName", name, err)
		}
		active, err := l.NetworkIsActive(n)
		if err != nil {
			return in, false, callErr("NetworkIsActive", name, err)
		}
		return in, active == 1, nil
	}
	dom, err := l.DomainLookupByName(in.Name)
	if isNotFound(err) {
		return in, false, nil
	} else if err != nil {
		return in, false, callErr("DomainLookupByName", in.Name, err)
	}
	state, _, err := l.DomainGetState(dom, 0)
	if err != nil {
		return in, false, callErr("DomainGetState", in.Name, err)
	}
	return in, golibvirt.DomainState(state) == golibvirt.DomainRunning && providers.EndpointOf(in).Addr != "", nil
}

// Delete removes a machine (domain and overlay) or a link (lab's network).
// What is gone counts as removed.
func (p *Provider) Delete(ctx context.Context, in providers.Instance) (err error) {
	defer p.explain(&err)
	l, err := p.conn()
	if err != nil {
		return err
	}
	if in.Kind == "link" {
		return p.deleteLink(l, in)
	}
	return p.deleteMachine(ctx, l, in)
}

// deleteMachine removes a domain that carries in.Owner's tag and the
// overlay its metadata names. A domain without that tag is refused
// (*providers.NotOwnedError). With no domain of this name, nothing proves a
// volume of the overlay's name lab's: it is left alone.
//
// The order mirrors Create's (define the tagged domain, then its volumes):
// the domain is stopped, its volumes deleted, and only then is the domain
// — the one thing that proves them lab's — undefined. Interrupted at any
// point, what is left is either nothing or a tagged domain that List and
// the next delete find; never a volume nobody can prove lab's.
func (p *Provider) deleteMachine(ctx context.Context, l *golibvirt.Libvirt, in providers.Instance) error {
	dom, err := l.DomainLookupByName(in.Name)
	if isNotFound(err) {
		return nil
	} else if err != nil {
		return callErr("DomainLookupByName", in.Name, err)
	}
	meta, merr := domainMeta(l, dom)
	if merr != nil || !owns(in.Owner, meta.Tag, meta.LabID) {
		return notOwned(in.Owner, "domain", in.Name, meta.Tag)
	}
	if err := l.DomainDestroyFlags(dom, 0); err != nil && !isNotFound(err) && !isNotRunning(err) {
		return callErr("DomainDestroy", in.Name, err)
	}
	if meta.Pool != "" {
		for _, name := range []string{meta.Volume, meta.Seed} {
			if err := deleteVolume(l, meta.Pool, name); err != nil {
				return err
			}
		}
	}
	faultAt(faultAfterVolumesDelete)
	flags := golibvirt.DomainUndefineManagedSave | golibvirt.DomainUndefineSnapshotsMetadata |
		golibvirt.DomainUndefineNvram | golibvirt.DomainUndefineCheckpointsMetadata
	if err := l.DomainUndefineFlags(dom, flags); err != nil && !isNotFound(err) {
		return callErr("DomainUndefineFlags", in.Name, err)
	}
	return nil
}

// deleteVolume deletes volume name of pool; what is gone is done. Only
// for volumes a domain of the owner names (see deleteMachine).
func deleteVolume(l *golibvirt.Libvirt, pool, name string) error {
	if name == "" {
		return nil
	}
	pl, err := l.StoragePoolLookupByName(pool)
	if err != nil {
		if errors.As(err, new(golibvirt.Error)) && golibvirt.ErrorNumber(err.(golibvirt.Error).Code) == golibvirt.ErrNoStoragePool {
			return nil
		}
		return callErr("StoragePoolLookupByName", pool, err)
	}
	vol, err := l.StorageVolLookupByName(pl, name)
	if isNotFound(err) {
		return nil
	} else if err != nil {
		return callErr("StorageVolLookupByName", name, err)
	}
	if err := l.StorageVolDelete(vol, golibvirt.StorageVolDeleteNormal); err != nil && !isNotFound(err) {
		return callErr("StorageVolDelete", name, err)
	}
	return nil
}

func domainMeta(l *golibvirt.Libvirt, dom golibvirt.Domain) (labMeta, error) {
	s, err := l.DomainGetMetadata(dom, int32(golibvirt.DomainMetadataElement), golibvirt.OptString{MetadataNS}, golibvirt.DomainAffectCurrent)
	if err != nil {
		return labMeta{}, callErr("DomainGetMetadata", dom.Name, err)
	}
	return parseMeta(s)
}

// List finds o's domains and networks by the tag in their metadata. Each
// instance carries the owner its own tag names, not o: asked for every
// workspace of a lab (providers.AnyWorkspace), the answer says which
// workspace each object is really in. A domain's volumes are in its
// instance's Attrs (volumes carry no tag: their domain's is theirs).
func (p *Provider) List(ctx context.Context, o providers.Owner) (_ []providers.Instance, err error) {
	defer p.explain(&err)
	l, err := p.conn()
	if err != nil {
		return nil, err
	}
	doms, _, err := l.ConnectListAllDomains(1, golibvirt.ConnectListDomainsActive|golibvirt.ConnectListDomainsInactive)
	if err != nil {
		return nil, callErr("ConnectListAllDomains", "", err)
	}
	var out []providers.Instance
	for _, d := range doms {
		meta, err := domainMeta(l, d)
		if err != nil || !owns(o, meta.Tag, meta.LabID) {
			continue
		}
		out = append(out, domainInstance(o, d, meta))
	}
	nets, _, err := l.ConnectListAllNetworks(1, 0)
	if err != nil {
		return out, callErr("ConnectListAllNetworks", "", err)
	}
	for _, n := range nets {
		x, err := l.NetworkGetXMLDesc(n, 0)
		if err != nil {
			continue // gone since the listing
		}
		if tag := networkTag(x); o.Owns(tag) {
			out = append(out, networkInstance(n, tag))
		}
	}
	return out, nil
}

// domainInstance is a listed domain of o's, with the owner its metadata's
// tag names (o itself for a domain of lab 0.1, matched by lab id).
func domainInstance(o providers.Owner, d golibvirt.Domain, meta labMeta) providers.Instance {
	owner := o
	if t, _, ok := providers.ParseTag(meta.Tag); ok {
		owner = t
	}
	attrs := map[string]string{attrLabID: owner.Lab, attrVolume: meta.Volume, attrPool: meta.Pool}
	if meta.Seed != "" {
		attrs[attrSeed] = meta.Seed
	}
	return providers.Instance{Address: meta.Address, Provider: TypeName, Kind: "machine", ID: uuidString(d.UUID), Name: d.Name,
		Owner: owner, Attrs: attrs}
}

// networkInstance is a listed network with the owner and address its tag
// names (tag is a valid lab tag: List matched it).
func networkInstance(n golibvirt.Network, tag string) providers.Instance {
	owner, addr, _ := providers.ParseTag(tag)
	return providers.Instance{Address: addr, Provider: TypeName, Kind: "link", ID: uuidString(n.UUID), Name: strings.TrimPrefix(n.Name, networkPrefix),
		Owner: owner, Attrs: map[string]string{attrLabID: owner.Lab, attrNetwork: n.Name, attrOwned: "true"}}
}

func uuidString(u golibvirt.UUID) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// trace logs the steps of a create with their timing at lab's trace level
// (LAB_LOG=trace): the way to see which call a slow hypervisor spends its
// time in.
func trace(f string, a ...any) {
	slog.Log(context.Background(), providers.LevelTrace, "libvirt: "+fmt.Sprintf(f, a...))
}
