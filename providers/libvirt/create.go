package libvirt

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/steps"
)

// Create makes one guest: overlay, domain, start, lease, SSH. It runs the
// named steps of createSteps through providers/steps (Packer's multistep
// is the model): each says what of the creation it uses and what it
// produces, and an error names the machine's address and the step. A step
// that fails ends the create; what it returns is the instance as far as it
// got, which the engine records as pending and a later apply or destroy
// removes — lab's pending state plays the part of Packer's Cleanup. A step
// that fails before anything of lab's exists (or on an object lab does not
// own) sets nothing, and Create returns an instance without an address;
// what the steps before it made is then undone (undefine).
func (p *Provider) Create(ctx context.Context, m machine.Machine) (_ machine.Instance, err error) {
	defer p.explain(&err)
	c := newCreation(p, m)
	if err := steps.Run(ctx, m.Address, c.createSteps()); err != nil {
		if c.nothing {
			return machine.Instance{}, err
		}
		var se *steps.Error
		if errors.Is(err, providers.ErrNotOwned) && errors.As(err, &se) {
			// A refusal whose undo failed: the domain stays, and the
			// engine forgets a refusal's record, so this one must not
			// read as one (the message still says all of it).
			se.Err = errors.New(se.Err.Error())
		}
		return c.in, err
	}
	return c.in, nil
}

// createSteps are Create's steps in order; the first four do no I/O.
func (c *creation) createSteps() []steps.Step {
	return []steps.Step{
		{Name: "check spec", Run: c.checkSpec},
		{Name: "place link", Run: c.placeLink},
		{Name: "place management NIC", Run: c.placeManagement},
		{Name: "size and login", Run: c.sizeAndLogin},
		{Name: "connect", Run: c.connect},
		{Name: "clear leftover", Run: c.clearLeftover},
		{Name: "check pool", Run: c.checkPool},
		{Name: "build domain", Run: c.buildDomain},
		{Name: "define domain", Run: c.define, Undo: c.undefine},
		{Name: "make disks", Run: c.makeDisks},
		{Name: "start domain", Run: c.start},
		{Name: "wait until ready", Run: c.waitReady},
	}
}

// creation is what Create's steps share (Packer's state bag).
type creation struct {
	p  *Provider
	m  machine.Machine
	in machine.Instance // grows step by step; what a failed create leaves to record
	// nothing: the failure left nothing of lab's to record.
	nothing bool
	t0      time.Time

	model       string          // the NIC model (checkSpec)
	host, guest map[string]bool // offload bits (checkSpec)
	// The benchmark NIC's link (placeLink): a libvirt network, or a host
	// device (linkType, linkDev) with staticAddr set over SSH.
	network, linkType, linkDev, staticAddr, mac string
	// A routed pair's router: its second benchmark NIC, on the client's
	// network (placeRouted).
	network2, mac2   string
	mgmtNet, mgmtMAC string // the management NIC (placeManagement)
	vcpu, mem        int    // sizeAndLogin
	login            machine.Login
	pubKey           string // cloud-init's key; "" without cloud_init {}
	l                *golibvirt.Libvirt
	pool             golibvirt.StoragePool
	ds               domainSpec
	dom              golibvirt.Domain
}

func newCreation(p *Provider, m machine.Machine) *creation {
	return &creation{p: p, m: m, in: machine.Instance{Address: m.Address, Provider: TypeName, Kind: "machine", Name: m.Name, Owner: m.Owner(),
		Attrs: map[string]string{attrLabID: m.LabID, attrPool: p.cfg.Pool, attrVolume: volumeName(m.Name)}}}
}

// refuse marks err as a failure that leaves nothing of lab's to record.
func (c *creation) refuse(err error) error {
	c.nothing = true
	return err
}

// checkSpec checks what the spec asks for against what this provider can
// do. Uses: m.Template, m.NIC, Capabilities. Produces: model, host, guest.
func (c *creation) checkSpec(context.Context) error {
	m := c.m
	if m.Template.Source == "" {
		return fmt.Errorf("template %q has no source (the base volume's name in pool %q)", m.Template.Name, c.p.cfg.Pool)
	}
	if err := c.p.checkAccel(); err != nil {
		return c.refuse(err) // before anything is made: nothing to record
	}
	caps := c.p.Capabilities()
	c.model = m.NIC.Model
	if c.model == "" {
		c.model = caps.NICModels[0]
	}
	if !caps.AcceptsNICModel(c.model) {
		return fmt.Errorf("nic model %q: the libvirt provider knows %s", c.model, strings.Join(caps.NICModels, ", "))
	}
	if m.NIC.TXQueueSize > 0 && !caps.NICTXQueueSize {
		// The plan refuses it first (Capabilities); this guards a saved plan.
		return errors.New("nic tx_queue_size: libvirt honours it only for vhost-user interfaces (formatdomain, interface <driver>), lab's are tap devices")
	}
	var err error
	c.host, c.guest, err = splitOffloads(m.NIC.Host)
	return err
}

// placeLink puts the benchmark NIC on the pair's link: a libvirt network
// or a host device. Uses: m.Link, cfg.Network. Produces: network, linkType,
// linkDev, staticAddr, mac.
func (c *creation) placeLink(context.Context) error {
	m := c.m
	c.linkType, c.linkDev = m.Link.Attrs[attrLinkType], m.Link.Attrs[attrLinkDev]
	c.network = m.Link.Attrs[attrNetwork]
	if c.network == "" && c.linkType == "" {
		c.network = c.p.cfg.Network
	}
	switch {
	case c.linkType != "":
		// A host device: no DHCP there; the address is set over SSH.
		c.in.Attrs[attrLinkType], c.in.Attrs[attrLinkDev] = c.linkType, c.linkDev
		sn, err := netip.ParsePrefix(m.Link.Attrs["subnet"])
		if err != nil || !sn.Addr().Is4() {
			return fmt.Errorf("the link on %s records no subnet (%q): apply again to remake it", c.linkDev, m.Link.Attrs["subnet"])
		}
		a4 := sn.Addr().As4()
		c.staticAddr = linkHostAddr([3]byte{a4[0], a4[1], a4[2]}, m.Role)
		c.in.Attrs[attrStaticAddr] = c.staticAddr + "/24"
		if pfx, err := netip.ParsePrefix(m.LinkAddress); err == nil {
			// The spec's address on the device's network (pair
			// addresses): a cross pair's other end is there already.
			c.staticAddr, c.in.Attrs[attrStaticAddr] = pfx.Addr().String(), m.LinkAddress
		}
	case c.network == "":
		return errors.New("no network: the pair's link was not created and the provider names none")
	default:
		c.in.Attrs[attrNetwork] = c.network
	}
	c.mac = macFor(m.LabID, m.Name)
	c.in.Attrs[attrMAC] = c.mac
	return c.placeRouted()
}

// placeManagement picks the management NIC's network, if any. Uses:
// m.Link, cfg.Management, linkType. Produces: mgmtNet, mgmtMAC.
func (c *creation) placeManagement(context.Context) error {
	m, cfg := c.m, c.p.cfg
	c.mgmtNet = m.Link.Attrs[attrMgmtNetwork]
	if c.mgmtNet == "" && cfg.Management != "" && cfg.Management != ManagementLab {
		c.mgmtNet = cfg.Management
	}
	if c.linkType != "" && c.mgmtNet == "" {
		return fmt.Errorf("the link is on %s, which lab does not own: a management NIC is needed to set the guest's link address (set management)", c.linkDev)
	}
	if c.network2 != "" && c.mgmtNet == "" {
		return errors.New("a router needs a management NIC, over which lab sets its link addresses (set management)")
	}
	if c.mgmtNet == "" && cfg.Management == ManagementLab {
		return errors.New("no management network: the pair's link was made without one (apply again to remake it)")
	}
	if c.mgmtNet != "" {
		c.mgmtMAC = macFor(m.LabID, m.Name+"\x00management")
		c.in.Attrs[attrMgmtNetwork], c.in.Attrs[attrMgmtMAC] = c.mgmtNet, c.mgmtMAC
	}
	return nil
}

// sizeAndLogin settles the guest's size and how lab logs in. Uses: m.VCPU,
// m.MemoryMiB, m.Template. Produces: vcpu, mem, login, pubKey, in.Endpoint.
func (c *creation) sizeAndLogin(context.Context) error {
	m := c.m
	c.vcpu, c.mem = m.VCPU, m.MemoryMiB
	if c.vcpu <= 0 {
		c.vcpu = 1
	}
	if c.mem <= 0 {
		c.mem = 1024
	}
	c.in.Attrs[attrVCPU] = strconv.Itoa(c.vcpu)
	if s := m.Template.SSH; s != nil {
		c.login = *s
	}
	c.in.Endpoint = providers.SSHEndpoint("", c.login)
	if m.Template.CloudInit != nil {
		var err error
		if c.pubKey, err = publicKey(c.login); err != nil {
			return fmt.Errorf("template %q: %w", m.Template.Name, err)
		}
		c.in.Attrs[attrSeed] = seedVolumeName(m.Name)
	}
	return nil
}

// connect dials libvirtd (or reuses the provider's connection). Produces: l.
func (c *creation) connect(context.Context) error {
	c.t0 = time.Now()
	var err error
	if c.l, err = c.p.conn(); err != nil {
		return err
	}
	trace("%s conn %v", c.m.Name, time.Since(c.t0))
	return nil
}

// clearLeftover removes a leftover of an interrupted create under the same
// name (domain and, through its metadata, its volumes); a domain that is
// not this owner's is refused, recording nothing: nothing of lab's
// exists. Uses: l.
func (c *creation) clearLeftover(ctx context.Context) error {
	if err := c.p.deleteMachine(ctx, c.l, c.in); err != nil {
		if errors.Is(err, providers.ErrNotOwned) {
			return c.refuse(err)
		}
		return fmt.Errorf("remove leftover: %w", err)
	}
	return nil
}

// checkPool checks the pool and its template volume, and refuses a volume
// of the overlay's or the seed's name: no domain of this owner names it
// any more (clearLeftover), so it is not lab's. A refusal records
// nothing. Uses: l, pubKey. Produces: pool.
func (c *creation) checkPool(context.Context) error {
	m, o, pl := c.m, c.in.Owner, c.p.cfg.Pool
	// A missing or stopped pool, or no template volume in it: nothing of
	// lab's exists for this machine yet (pool.go says what to do).
	if err := checkPool(c.l, c.p.cfg.URI, pl, m.Template.Source); err != nil {
		return c.refuse(err)
	}
	var err error
	if c.pool, err = c.l.StoragePoolLookupByName(pl); err != nil {
		return callErr("StoragePoolLookupByName", pl, err)
	}
	vols := []string{volumeName(m.Name)}
	if c.pubKey != "" {
		vols = append(vols, seedVolumeName(m.Name))
	}
	for _, v := range vols {
		if _, err := c.l.StorageVolLookupByName(c.pool, v); err == nil {
			return c.refuse(notOwned(o, "volume", pl+"/"+v, ""))
		} else if !isNotFound(err) {
			return callErr("StorageVolLookupByName", v, err)
		}
	}
	trace("%s leftover+pool %v", m.Name, time.Since(c.t0))
	return nil
}

// buildDomain fills the domain's spec. Uses: everything the steps before
// produced, cfg, cpu_pin {}. Produces: ds and the attrs it records.
func (c *creation) buildDomain(context.Context) error {
	m, cfg, o := c.m, c.p.cfg, c.in.Owner
	ds := domainSpec{Name: m.Name, Type: domainType(cfg.Accel), Emulator: cfg.Emulator, Machine: cfg.Machine, VCPU: c.vcpu, MemoryMiB: c.mem,
		Pool: cfg.Pool, Volume: volumeName(m.Name),
		Network: c.network, LinkType: c.linkType, LinkDev: c.linkDev, MAC: c.mac, Model: c.model, Driver: cfg.NICDriver, Queues: m.NIC.Queues,
		RXQueueSize: m.NIC.RXQueueSize, MTU: linkMTU(m.Link), Host: c.host, Guest: c.guest,
		MgmtNetwork: c.mgmtNet, MgmtMAC: c.mgmtMAC, Network2: c.network2, MAC2: c.mac2,
		Meta: labMeta{LabID: m.LabID, Address: m.Address, Role: m.Role, Volume: volumeName(m.Name), Pool: cfg.Pool, Tag: o.Tag(m.Address)}}
	c.in.Attrs[attrMachine] = ds.Machine
	c.in.Attrs[attrNICDevice] = nicDevice(ds.Model)
	if ds.RXQueueSize > 0 {
		c.in.Attrs[attrRXQueueSize] = fmt.Sprint(ds.RXQueueSize)
	}
	if c.pubKey != "" {
		ds.Seed, ds.Meta.Seed = seedVolumeName(m.Name), seedVolumeName(m.Name)
	}
	if err := c.p.pinDomain(&ds, &c.in, m.Role); err != nil {
		return err
	}
	ds.ConsoleLog = consoleLogDir + "/" + m.Name + "-console.log"
	c.in.Attrs[attrConsoleLog] = ds.ConsoleLog
	if cfg.Kernel != "" {
		var err error
		if ds.Kernel, err = c.p.resolveFile(c.l, c.pool, cfg.Kernel); err != nil {
			return fmt.Errorf("kernel: %w", err)
		}
		if cfg.Initrd != "" {
			if ds.Initrd, err = c.p.resolveFile(c.l, c.pool, cfg.Initrd); err != nil {
				return fmt.Errorf("initrd: %w", err)
			}
		}
		ds.Cmdline = cfg.Cmdline
	}
	c.ds = ds
	return nil
}

// define defines the domain — first: its metadata is what proves the
// volumes lab's. Uses: ds. Produces: dom, in.ID.
func (c *creation) define(context.Context) error {
	x, err := domainXML(c.ds)
	if err != nil {
		return err
	}
	if c.dom, err = c.l.DomainDefineXML(x); err != nil {
		return callErr("DomainDefineXML", c.m.Name, err)
	}
	c.in.ID = uuidString(c.dom.UUID)
	trace("%s define %v", c.m.Name, time.Since(c.t0))
	faultAt(faultAfterDefine)
	return nil
}

// undefine undoes define when a later step refuses: the engine then
// records nothing (ErrNotOwned), so nothing else would remove the domain.
// After any other failure the Instance Create returns names the domain
// and its volumes, and the engine's pending record and teardown remove
// them (or `-keep` keeps them to look at): undefine leaves them.
func (c *creation) undefine(context.Context) error {
	if !c.nothing {
		return nil
	}
	if err := c.l.DomainUndefineFlags(c.dom, 0); err != nil {
		c.nothing = false // the domain stays: Create returns it to record
		return callErr("DomainUndefineFlags", c.m.Name, err)
	}
	return nil
}

// makeDisks makes the overlay on the template's volume and, with
// cloud_init {}, the seed. Uses: dom, pool, pubKey, the NICs' MACs.
func (c *creation) makeDisks(context.Context) error {
	m, l := c.m, c.l
	if err := c.p.makeOverlay(l, c.pool, m.Template.Source, volumeName(m.Name)); err != nil {
		if _, lerr := l.StorageVolLookupByName(c.pool, volumeName(m.Name)); lerr == nil {
			// Someone made a volume of this name since checkPool: it is
			// not lab's, and the domain naming it must not stay (undefine).
			return c.refuse(notOwned(c.in.Owner, "volume", c.p.cfg.Pool+"/"+volumeName(m.Name), ""))
		}
		return err
	}
	trace("%s overlay %v", m.Name, time.Since(c.t0))
	faultAt(faultAfterOverlay)
	if c.pubKey == "" {
		return nil
	}
	nics := []seedNIC{{"link", c.mac}}
	if c.mgmtNet != "" {
		nics = []seedNIC{{"mgmt", c.mgmtMAC}, {"link", c.mac}}
	}
	if c.staticAddr != "" {
		nics = nics[:1] // no DHCP on a host device or a router's NICs: lab sets the addresses
	}
	if err := c.p.writeSeed(l, c.pool, m, m.Name+"-"+c.in.ID, c.login, c.pubKey, nics); err != nil {
		return fmt.Errorf("cloud-init seed: %w", err)
	}
	trace("%s seed %v", m.Name, time.Since(c.t0))
	return nil
}

// start boots the domain. Uses: dom.
func (c *creation) start(context.Context) error {
	if err := c.l.DomainCreate(c.dom); err != nil {
		return callErr("DomainCreate", c.m.Name, err)
	}
	trace("%s define+start %v", c.m.Name, time.Since(c.t0))
	return nil
}

// waitReady waits for the guest's addresses and SSH, and records the
// template's identity. Uses: dom, the NICs. Produces: in.Endpoint's
// addresses and template identity, lease_s, ready_s.
func (c *creation) waitReady(ctx context.Context) error {
	m := c.m
	// The template's identity hashes the whole base volume (a second or
	// more, streamed through libvirtd): it is only recorded, so it runs
	// while the guest boots, after the domain started (streamed alongside
	// the define and start, it slowed those by up to a second).
	hctx, stopHash := context.WithCancel(ctx)
	defer stopHash()
	idc := make(chan templateID, 1)
	go func() {
		id, err := c.p.TemplateID(hctx, m)
		idc <- templateID{id, err}
	}()
	start := time.Now()
	// While the guest boots, a watch ends the waits at once when its
	// domain stops or its network goes away.
	watched := c.network
	if c.linkType != "" {
		watched = c.mgmtNet
	}
	wctx, stopWatch := c.p.watchBoot(ctx, c.l, m.Name, watched)
	defer stopWatch()
	if err := c.waitAddresses(ctx, wctx); err != nil {
		return err
	}
	c.in.Attrs["lease_s"] = strconv.FormatFloat(time.Since(start).Seconds(), 'f', 1, 64)
	sshHost := c.in.Endpoint.SSHHost
	if err := c.p.waitSSH(wctx, &c.in, m.Template, start); err != nil {
		return fmt.Errorf("domain %s, %s: %w%s", m.Name, sshHost, bootErr(ctx, wctx, err), bootHint(ctx, m.Name))
	}
	c.in.Attrs["ready_s"] = strconv.FormatFloat(time.Since(start).Seconds(), 'f', 1, 64)
	id := <-idc
	if id.err != nil {
		return fmt.Errorf("template identity: %w", id.err)
	}
	c.in.Endpoint.TemplateID = id.id
	trace("%s template identity %v", m.Name, time.Since(c.t0))
	return nil
}

// waitAddresses waits for the NICs' leases. With a management NIC, SSH
// goes to its address and the benchmark runs to the link's; without, the
// link's address serves both. A host device's address is lab's own
// (staticAddr), and so are a router's. Produces: in.Endpoint.Addr and SSHHost, mgmt_addr.
func (c *creation) waitAddresses(ctx, wctx context.Context) error {
	m := c.m
	sshHost := ""
	var err error
	if c.mgmtNet != "" {
		if sshHost, err = c.p.waitAddress(wctx, c.l, c.dom, c.mgmtNet, c.mgmtMAC); err != nil {
			return fmt.Errorf("domain %s, management NIC: %w%s", m.Name, bootErr(ctx, wctx, err), bootHint(ctx, m.Name))
		}
		c.in.Attrs[attrMgmtAddr] = sshHost
	}
	addr := c.staticAddr
	if addr == "" {
		if addr, err = c.p.waitAddress(wctx, c.l, c.dom, c.network, c.mac); err != nil {
			return fmt.Errorf("domain %s: %w%s", m.Name, bootErr(ctx, wctx, err), bootHint(ctx, m.Name))
		}
	}
	if sshHost == "" {
		sshHost = addr
	}
	c.in.Endpoint.Addr, c.in.Endpoint.SSHHost = addr, sshHost
	trace("%s lease %s %v", m.Name, addr, time.Since(c.t0))
	return nil
}

// templateID is what TemplateID returned.
type templateID struct {
	id  string
	err error
}
