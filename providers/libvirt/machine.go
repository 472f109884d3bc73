package libvirt

import (
	"context"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strconv"
	"strings"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
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
	// attrNICDevice is the emulated device behind the benchmark NIC
	// (nicDevice): results record whose model of the hardware ran.
	attrNICDevice = "nic_device"
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

// linkMTU is the MTU of the pair's link, set on the guest's NIC too (the
// bridge's MTU only bounds what the tap may carry).
func linkMTU(link machine.Instance) int {
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
func (p *Provider) Read(ctx context.Context, in machine.Instance) (_ machine.Instance, _ bool, err error) {
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
	return in, golibvirt.DomainState(state) == golibvirt.DomainRunning && machine.EndpointOf(in).Addr != "", nil
}

// Delete removes a machine (domain and overlay) or a link (lab's network).
// What is gone counts as removed.
func (p *Provider) Delete(ctx context.Context, in machine.Instance) (err error) {
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
func (p *Provider) deleteMachine(ctx context.Context, l *golibvirt.Libvirt, in machine.Instance) error {
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
// workspace of a lab (machine.AnyWorkspace), the answer says which
// workspace each object is really in. A domain's volumes are in its
// instance's Attrs (volumes carry no tag: their domain's is theirs).
func (p *Provider) List(ctx context.Context, o machine.Owner) (_ []machine.Instance, err error) {
	defer p.explain(&err)
	l, err := p.conn()
	if err != nil {
		return nil, err
	}
	doms, _, err := l.ConnectListAllDomains(1, golibvirt.ConnectListDomainsActive|golibvirt.ConnectListDomainsInactive)
	if err != nil {
		return nil, callErr("ConnectListAllDomains", "", err)
	}
	var out []machine.Instance
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
func domainInstance(o machine.Owner, d golibvirt.Domain, meta labMeta) machine.Instance {
	owner := o
	if t, _, ok := machine.ParseTag(meta.Tag); ok {
		owner = t
	}
	attrs := map[string]string{attrLabID: owner.Lab, attrVolume: meta.Volume, attrPool: meta.Pool}
	if meta.Seed != "" {
		attrs[attrSeed] = meta.Seed
	}
	return machine.Instance{Address: meta.Address, Provider: TypeName, Kind: "machine", ID: uuidString(d.UUID), Name: d.Name,
		Owner: owner, Attrs: attrs}
}

// networkInstance is a listed network with the owner and address its tag
// names (tag is a valid lab tag: List matched it).
func networkInstance(n golibvirt.Network, tag string) machine.Instance {
	owner, addr, _ := machine.ParseTag(tag)
	return machine.Instance{Address: addr, Provider: TypeName, Kind: "link", ID: uuidString(n.UUID), Name: strings.TrimPrefix(n.Name, networkPrefix),
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
