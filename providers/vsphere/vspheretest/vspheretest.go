// Package vspheretest runs govmomi's vCenter simulator (the VPX model) for
// tests of the vsphere provider: an HTTP listener on 127.0.0.1, two
// powered-off VMs turned into templates, host-wide vmxnet3 LRO options,
// and methods the simulator lacks — HostNetworkSystem.UpdateVirtualSwitch, UpdateNetworkConfig applied to the switches,
// and MaxMtu in ReconfigureDvs_Task — added by wrapping the simulator's own
// objects (its documented extension mechanism), not by faking SOAP.
package vspheretest

import (
	"context"
	"crypto/tls"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	_ "github.com/vmware/govmomi/vapi/simulator" // registers the REST endpoints (tagging API)
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// Names in the simulated inventory.
const (
	Datacenter  = "DC0"
	Cluster     = "DC0_C0"
	Datastore   = "LocalDS_0"
	Network     = "VM Network" // standard port group on vSwitch0 of every host
	DVPortgroup = "DC0_DVPG0"  // distributed port group
	FreeBSD     = "freebsd-14.2-tmpl"
	Debian      = "debian-12-tmpl"
)

// Sim is a running simulator.
type Sim struct {
	Model  *simulator.Model
	Server *simulator.Server
	// URL is the SDK endpoint without credentials; Username and Password
	// are what GOVC_USERNAME / GOVC_PASSWORD must hold.
	URL                string
	Username, Password string
	Client             *govmomi.Client

	mu           sync.Mutex
	calls        map[string]int
	ignoreMaxMTU atomic.Bool
}

// IgnoreMaxMTU makes the distributed switch accept MaxMtu changes without
// applying them (as the simulator itself does), or apply them again.
func (s *Sim) IgnoreMaxMTU(ignore bool) { s.ignoreMaxMTU.Store(ignore) }

// HostMTUs returns, by host name, the MTU of the vSwitch that carries
// Network on that host (0: the default, 1500).
func (s *Sim) HostMTUs() map[string]int32 {
	out := map[string]int32{}
	m := s.Model.Map()
	for _, obj := range m.All("HostSystem") {
		h := obj.(*simulator.HostSystem)
		if h.ConfigManager.NetworkSystem == nil {
			continue
		}
		ns, ok := m.Get(*h.ConfigManager.NetworkSystem).(*netSystem)
		if !ok {
			continue
		}
		for _, pg := range ns.NetworkInfo.Portgroup {
			if pg.Spec.Name != Network {
				continue
			}
			for _, sw := range ns.NetworkInfo.Vswitch {
				if sw.Name == pg.Spec.VswitchName {
					out[h.Name] = sw.Mtu
				}
			}
		}
	}
	return out
}

// SetHostMTU sets the MTU of the vSwitch carrying Network on the named
// host behind lab's back, as an administrator would.
func (s *Sim) SetHostMTU(host string, mtu int32) {
	m := s.Model.Map()
	for _, obj := range m.All("HostSystem") {
		h := obj.(*simulator.HostSystem)
		if h.Name != host || h.ConfigManager.NetworkSystem == nil {
			continue
		}
		ns := m.Get(*h.ConfigManager.NetworkSystem).(*netSystem)
		for i := range ns.NetworkInfo.Vswitch {
			ns.NetworkInfo.Vswitch[i].Mtu = mtu
			ns.NetworkInfo.Vswitch[i].Spec.Mtu = mtu
		}
	}
}

// countCalls counts every method call the simulator serves, by name.
func (s *Sim) countCalls() {
	m := s.Model.Map()
	next := m.Handler
	m.Handler = func(ctx *simulator.Context, method *simulator.Method) (mo.Reference, types.BaseMethodFault) {
		s.mu.Lock()
		if s.calls == nil {
			s.calls = map[string]int{}
		}
		s.calls[method.Name]++
		s.mu.Unlock()
		if next != nil {
			return next(ctx, method)
		}
		return nil, nil
	}
}

// PoweredOn is what OnPowerOn reports of a VM being powered on: the guest
// address it will report (set through extraConfig "SET.guest.ipAddress",
// which the simulator applies and does not keep), its extraConfig and the
// MAC of each NIC by the port group it is on.
type PoweredOn struct {
	Name        string
	GuestIP     string
	ExtraConfig map[string]string
	MACs        map[string]string // port group name → MAC
}

// OnPowerOn calls f for every VM before the simulator powers it on (the
// moment a real guest would boot with its NICs' MACs), through the
// registry's method hook.
func (s *Sim) OnPowerOn(f func(PoweredOn)) {
	m := s.Model.Map()
	next := m.Handler
	m.Handler = func(ctx *simulator.Context, method *simulator.Method) (mo.Reference, types.BaseMethodFault) {
		if method.Name == "PowerOnVM_Task" {
			if vm, ok := ctx.Map.Get(method.This).(*simulator.VirtualMachine); ok && vm.Config != nil {
				on := PoweredOn{Name: vm.Name, ExtraConfig: map[string]string{}, MACs: map[string]string{}}
				if vm.Guest != nil {
					on.GuestIP = vm.Guest.IpAddress
				}
				for _, o := range vm.Config.ExtraConfig {
					if v := o.GetOptionValue(); v != nil {
						on.ExtraConfig[v.Key], _ = v.Value.(string)
					}
				}
				for _, d := range vm.Config.Hardware.Device {
					card, ok := d.(types.BaseVirtualEthernetCard)
					if !ok {
						continue
					}
					if b, ok := d.GetVirtualDevice().Backing.(*types.VirtualEthernetCardNetworkBackingInfo); ok {
						on.MACs[b.DeviceName] = card.GetVirtualEthernetCard().MacAddress
					}
				}
				f(on)
			}
		}
		if next != nil {
			return next(ctx, method)
		}
		return nil, nil
	}
}

// Calls returns how many times method (a SOAP method name such as
// "Login") was called since the simulator started or ResetCalls.
func (s *Sim) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// ResetCalls sets every call count to zero.
func (s *Sim) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// Start runs a simulator until the test ends.
func Start(t testing.TB) *Sim {
	t.Helper()
	return start(t, false, 0)
}

// StartHosts runs a simulator whose cluster DC0_C0 has n hosts
// (DC0_C0_H0 …; the model's default is 3) until the test ends.
func StartHosts(t testing.TB, n int) *Sim {
	t.Helper()
	return start(t, false, n)
}

// StartTLS runs a simulator serving HTTPS with a certificate of its own
// (Server.Certificate, Server.CertificateFile) until the test ends.
func StartTLS(t testing.TB) *Sim {
	t.Helper()
	return start(t, true, 0)
}

func start(t testing.TB, withTLS bool, clusterHosts int) *Sim {
	t.Helper()
	model := simulator.VPX()
	if clusterHosts > 0 {
		model.ClusterHost = clusterHosts
	}
	if err := model.Create(); err != nil {
		t.Fatal(err)
	}
	if withTLS {
		model.Service.TLS = new(tls.Config)
	}
	// A fixed login, so that a wrong password is refused (the simulator
	// accepts any non-empty one by default).
	model.Service.Listen = &url.URL{User: url.UserPassword("lab-test@vsphere.local", "Sim-Passw0rd-7")}
	model.Service.RegisterEndpoints = true // the tagging API (vapi/simulator)
	srv := model.Service.NewServer()
	t.Cleanup(func() { srv.Close(); model.Remove() })
	u := *srv.URL
	pw, _ := u.User.Password()
	s := &Sim{Model: model, Server: srv, Username: u.User.Username(), Password: pw}
	u.User = nil
	s.URL = u.String()

	ctx := context.Background()
	cu := *srv.URL
	c, err := govmomi.NewClient(ctx, &cu, true)
	if err != nil {
		t.Fatal(err)
	}
	s.Client = c
	extendNetworking(model, &s.ignoreMaxMTU)
	s.countCalls()
	f := find.NewFinder(c.Client, true)
	dc, err := f.Datacenter(ctx, Datacenter)
	if err != nil {
		t.Fatal(err)
	}
	f.SetDatacenter(dc)
	for from, to := range map[string]string{"DC0_C0_RP0_VM0": FreeBSD, "DC0_C0_RP0_VM1": Debian} {
		if err := makeTemplate(ctx, f, from, to); err != nil {
			t.Fatalf("template %s: %v", to, err)
		}
	}
	hosts, err := f.HostSystemList(ctx, "*/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		om, err := h.ConfigManager().OptionManager(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := om.Update(ctx, []types.BaseOptionValue{
			&types.OptionValue{Key: "Net.Vmxnet3HwLRO", Value: int64(1)},
			&types.OptionValue{Key: "Net.Vmxnet3SwLRO", Value: int64(1)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// makeTemplate powers a VM off, renames it and marks it as a template.
func makeTemplate(ctx context.Context, f *find.Finder, from, to string) error {
	vm, err := f.VirtualMachine(ctx, from)
	if err != nil {
		return err
	}
	if t, err := vm.PowerOff(ctx); err == nil {
		_ = t.Wait(ctx)
	}
	t, err := vm.Rename(ctx, to)
	if err != nil {
		return err
	}
	if err := t.Wait(ctx); err != nil {
		return err
	}
	return vm.MarkAsTemplate(ctx)
}

// Env is the environment the provider reads its credentials from.
func (s *Sim) Env() map[string]string {
	return map[string]string{"GOVC_URL": s.URL, "GOVC_USERNAME": s.Username, "GOVC_PASSWORD": s.Password}
}

// Getenv looks names up in Env.
func (s *Sim) Getenv(name string) string { return s.Env()[name] }

// ExtendNetworking adds UpdateVirtualSwitch to every host's network system
// (by wrapping the simulator's object, as its Example_extend shows) and
// makes ReconfigureDvs_Task apply MaxMtu (through the registry's method
// hook, before the simulator's own handler runs: the DVS object stays in
// place because the simulator looks it up by its concrete type).
func ExtendNetworking(model *simulator.Model) { extendNetworking(model, nil) }

// extendNetworking is ExtendNetworking; while *ignoreMaxMTU is true the
// DVS takes a MaxMtu change without applying it (a switch that accepts a
// change and keeps its old MTU).
func extendNetworking(model *simulator.Model, ignoreMaxMTU *atomic.Bool) {
	m := model.Map()
	for _, obj := range m.AllReference("HostNetworkSystem") {
		if ns, ok := obj.(*simulator.HostNetworkSystem); ok {
			m.Put(&netSystem{ns, model})
		}
	}
	m.Handler = func(ctx *simulator.Context, method *simulator.Method) (mo.Reference, types.BaseMethodFault) {
		if method.Name != "ReconfigureDvs_Task" {
			return nil, nil
		}
		req, ok := method.Body.(*types.ReconfigureDvs_Task)
		if !ok {
			return nil, nil
		}
		d, ok := ctx.Map.Get(method.This).(*simulator.DistributedVirtualSwitch)
		if !ok {
			return nil, nil
		}
		if ignoreMaxMTU != nil && ignoreMaxMTU.Load() {
			return nil, nil
		}
		if spec, ok := req.Spec.(*types.VMwareDVSConfigSpec); ok && spec.MaxMtu > 0 {
			ctx.Map.WithLock(ctx, d, func() {
				if cfg, ok := d.Config.(*types.VMwareDVSConfigInfo); ok {
					cfg.MaxMtu = spec.MaxMtu
				}
			})
		}
		return nil, nil
	}
}

type netSystem struct {
	*simulator.HostNetworkSystem
	model *simulator.Model
}

// UpdateVirtualSwitch replaces a vSwitch's spec, as ESXi does.
func (s *netSystem) UpdateVirtualSwitch(req *types.UpdateVirtualSwitch) soap.HasFault {
	body := &methods.UpdateVirtualSwitchBody{}
	for i := range s.NetworkInfo.Vswitch {
		sw := &s.NetworkInfo.Vswitch[i]
		if sw.Name == req.VswitchName {
			sw.Spec = req.Spec
			sw.Mtu = req.Spec.Mtu
			body.Res = &types.UpdateVirtualSwitchResponse{}
			return body
		}
	}
	body.Fault_ = simulator.Fault("", &types.NotFound{})
	return body
}

// AddVirtualSwitch adds a vSwitch with its spec — MTU, ports, uplinks
// (Bridge) — as ESXi does (the simulator's own keeps the name only).
func (s *netSystem) AddVirtualSwitch(req *types.AddVirtualSwitch) soap.HasFault {
	body := &methods.AddVirtualSwitchBody{}
	for _, sw := range s.NetworkInfo.Vswitch {
		if sw.Name == req.VswitchName {
			body.Fault_ = simulator.Fault("", &types.AlreadyExists{Name: req.VswitchName})
			return body
		}
	}
	sw := types.HostVirtualSwitch{Name: req.VswitchName, Key: "key-vim.host.VirtualSwitch-" + req.VswitchName}
	if req.Spec != nil {
		sw.Spec, sw.Mtu, sw.NumPorts = *req.Spec, req.Spec.Mtu, req.Spec.NumPorts
		if b, ok := req.Spec.Bridge.(*types.HostVirtualSwitchBondBridge); ok {
			for _, n := range b.NicDevice {
				sw.Pnic = append(sw.Pnic, "key-vim.host.PhysicalNic-"+n)
			}
		}
	}
	s.NetworkInfo.Vswitch = append(s.NetworkInfo.Vswitch, sw)
	body.Res = &types.AddVirtualSwitchResponse{}
	return body
}

// UpdateNetworkConfig applies a HostNetworkConfig in "modify" mode to the
// vSwitches and port groups, which the simulator's own does not: it keeps
// the request as networkConfig and changes nothing. The vSphere API
// reference (HostNetworkSystem.UpdateNetworkConfig; HostNetworkConfig,
// HostVirtualSwitchConfig, HostPortGroupConfig; HostConfigChangeMode,
// HostConfigChangeOperation) has "modify" mean the config is the set of
// operations to apply, each entry's changeOperation being "add", "edit"
// or "remove", and names AlreadyExists, NotFound and ResourceInUse among
// its faults. It does not say in what order the entries are applied, nor
// that a failed call changes nothing; this fixture takes the order the
// objects depend on (vSwitches added or edited, then port groups, then
// vSwitches removed) and the worst case of a fault: the entries before
// the failing one stay applied. Each entry is applied by the method that
// makes that one change (AddVirtualSwitch, AddPortGroup, ...), and a fault
// injected into that method (Sim.Fail) fails the call at that entry, so a
// test can interrupt a batch half-way. "replace" mode (the whole desired
// configuration) is refused with NotSupported: lab never sends it.
func (s *netSystem) UpdateNetworkConfig(ctx *simulator.Context, req *types.UpdateNetworkConfig) soap.HasFault {
	body := &methods.UpdateNetworkConfigBody{}
	if req.ChangeMode != string(types.HostConfigChangeModeModify) {
		body.Fault_ = simulator.Fault("changeMode "+req.ChangeMode+" is not simulated", &types.NotSupported{})
		return body
	}
	var steps []func() soap.HasFault
	for _, v := range req.Config.Vswitch {
		switch v.ChangeOperation {
		case string(types.HostConfigChangeOperationAdd):
			steps = append(steps, s.step("AddVirtualSwitch", func() soap.HasFault {
				return s.AddVirtualSwitch(&types.AddVirtualSwitch{VswitchName: v.Name, Spec: v.Spec})
			}))
		case string(types.HostConfigChangeOperationEdit):
			steps = append(steps, s.step("UpdateVirtualSwitch", func() soap.HasFault {
				return s.UpdateVirtualSwitch(&types.UpdateVirtualSwitch{VswitchName: v.Name, Spec: *v.Spec})
			}))
		}
	}
	for _, pg := range req.Config.Portgroup {
		switch pg.ChangeOperation {
		case string(types.HostConfigChangeOperationAdd):
			steps = append(steps, s.step("AddPortGroup", func() soap.HasFault {
				return s.AddPortGroup(ctx, &types.AddPortGroup{Portgrp: *pg.Spec})
			}))
		case string(types.HostConfigChangeOperationRemove):
			steps = append(steps, s.step("RemovePortGroup", func() soap.HasFault {
				return s.RemovePortGroup(ctx, &types.RemovePortGroup{PgName: pg.Spec.Name})
			}))
		}
	}
	for _, v := range req.Config.Vswitch {
		if v.ChangeOperation == string(types.HostConfigChangeOperationRemove) {
			steps = append(steps, s.step("RemoveVirtualSwitch", func() soap.HasFault {
				return s.RemoveVirtualSwitch(&types.RemoveVirtualSwitch{VswitchName: v.Name})
			}))
		}
	}
	for _, step := range steps {
		if r := step(); r.Fault() != nil {
			body.Fault_ = r.Fault()
			return body
		}
	}
	body.Res = &types.UpdateNetworkConfigResponse{}
	return body
}

// step is one entry of UpdateNetworkConfig, applied by apply unless a
// fault injected into method (the single-change method) fires first.
func (s *netSystem) step(method string, apply func() soap.HasFault) func() soap.HasFault {
	return func() soap.HasFault {
		if s.model.Service == nil || s.model.Service.FaultInjector() == nil {
			return apply()
		}
		fi := s.model.Service.FaultInjector()
		m := &simulator.Method{Name: method, This: s.Self}
		if rule := fi.ShouldInjectFault(m, s); rule != nil {
			return fi.CreateFault(rule, m)
		}
		return apply()
	}
}

// NetworkInfo returns every host's network information by host name,
// read through the API (each call decodes fresh copies, so two calls
// compare deeply with reflect.DeepEqual).
func (s *Sim) NetworkInfo(t testing.TB) map[string]types.HostNetworkInfo {
	t.Helper()
	ctx := context.Background()
	f := find.NewFinder(s.Client.Client, true)
	hosts, err := f.HostSystemList(ctx, "/"+Datacenter+"/host/*/*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]types.HostNetworkInfo{}
	for _, h := range hosts {
		ns, err := h.ConfigManager().NetworkSystem(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var o mo.HostNetworkSystem
		if err := ns.Properties(ctx, ns.Reference(), []string{"networkInfo"}, &o); err != nil || o.NetworkInfo == nil {
			t.Fatalf("network of %s: %v", h.Name(), err)
		}
		out[h.Name()] = *o.NetworkInfo
	}
	return out
}

// AddVSwitch adds a vSwitch (with an uplink when uplink is set) and a port
// group on it to the named host, as an administrator would by hand.
func (s *Sim) AddVSwitch(t testing.TB, host, vswitch, portgroup string, uplink bool) {
	t.Helper()
	ctx := context.Background()
	f := find.NewFinder(s.Client.Client, true)
	h, err := f.HostSystem(ctx, "/"+Datacenter+"/host/*/"+host)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := h.ConfigManager().NetworkSystem(ctx)
	if err != nil {
		t.Fatal(err)
	}
	spec := &types.HostVirtualSwitchSpec{NumPorts: 64, Mtu: 1500}
	if uplink {
		spec.Bridge = &types.HostVirtualSwitchBondBridge{NicDevice: []string{"vmnic1"}}
	}
	if err := ns.AddVirtualSwitch(ctx, vswitch, spec); err != nil {
		t.Fatal(err)
	}
	if portgroup != "" {
		if err := ns.AddPortGroup(ctx, types.HostPortGroupSpec{Name: portgroup, VswitchName: vswitch}); err != nil {
			t.Fatal(err)
		}
	}
}

// VSwitchMTUs returns the MTU of the vSwitch carrying Network on each host.
func (s *Sim) VSwitchMTUs() map[string]int32 {
	out := map[string]int32{}
	for _, obj := range s.Model.Map().AllReference("HostNetworkSystem") {
		ns := obj.(*netSystem)
		for _, sw := range ns.NetworkInfo.Vswitch {
			out[ns.Self.Value+"/"+sw.Name] = sw.Mtu
		}
	}
	return out
}

// DVSMaxMTU returns the MaxMtu of the first distributed switch.
func (s *Sim) DVSMaxMTU() int32 {
	for _, obj := range append(s.Model.Map().All("DistributedVirtualSwitch"), s.Model.Map().All("VmwareDistributedVirtualSwitch")...) {
		if cfg, ok := obj.(*simulator.DistributedVirtualSwitch).Config.(*types.VMwareDVSConfigInfo); ok {
			return cfg.MaxMtu
		}
	}
	return -1
}

// VMs returns the names of the VMs (not templates) in the inventory.
func (s *Sim) VMs() []string {
	var out []string
	for _, obj := range s.Model.Map().All("VirtualMachine") {
		vm := obj.(*simulator.VirtualMachine)
		if vm.Config != nil && !vm.Config.Template {
			out = append(out, vm.Name)
		}
	}
	return out
}

// Folder reports whether a VM folder of that name exists.
func (s *Sim) Folder(name string) bool {
	for _, obj := range s.Model.Map().All("Folder") {
		if obj.(*simulator.Folder).Name == name {
			return true
		}
	}
	return false
}

// Fail makes every call of method on objects named object (or "*") fail
// with a generic fault, count times (0: always), through the simulator's
// fault injection rules; the returned function removes every rule.
func (s *Sim) Fail(method, objectType, object string, count int) func() {
	svc := s.Model.Service
	rule := &simulator.FaultInjectionRule{MethodName: method, ObjectType: objectType, ObjectName: object,
		Probability: 1, FaultType: simulator.FaultTypeGeneric, Message: "injected " + method + " fault", MaxCount: count, Enabled: true}
	svc.AddFaultRule(rule)
	return svc.ClearFaultRules
}

// EditTemplate reconfigures the template VM name (a new annotation), as an
// admin updating a template would; vCenter gives it a new change version.
func (s *Sim) EditTemplate(t testing.TB, name string) {
	t.Helper()
	ctx := context.Background()
	f := find.NewFinder(s.Client.Client, true)
	dc, err := f.Datacenter(ctx, Datacenter)
	if err != nil {
		t.Fatal(err)
	}
	f.SetDatacenter(dc)
	vm, err := f.VirtualMachine(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	task, err := vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{Annotation: "updated " + time.Now().Format(time.RFC3339Nano)})
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("edit template %s: %v", name, err)
	}
}

// PlantVM clones the FreeBSD template into the VM folder folderName of
// the datacenter (made when missing) as vmName, with annotation (none when
// empty), as someone working by hand beside lab would; it returns the VM's
// managed object id.
func (s *Sim) PlantVM(t testing.TB, folderName, vmName, annotation string) string {
	t.Helper()
	ctx := context.Background()
	f := find.NewFinder(s.Client.Client, true)
	dc, err := f.Datacenter(ctx, Datacenter)
	if err != nil {
		t.Fatal(err)
	}
	f.SetDatacenter(dc)
	folders, err := dc.Folders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	folder, err := f.Folder(ctx, folders.VmFolder.InventoryPath+"/"+folderName)
	if err != nil {
		if folder, err = folders.VmFolder.CreateFolder(ctx, folderName); err != nil {
			t.Fatal(err)
		}
	}
	src, err := f.VirtualMachine(ctx, FreeBSD)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := f.ClusterComputeResource(ctx, Cluster)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := cl.ResourcePool(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pr := pool.Reference()
	task, err := src.Clone(ctx, folder, vmName, types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{Pool: &pr}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		t.Fatalf("plant %s: %v", vmName, err)
	}
	ref := info.Result.(types.ManagedObjectReference)
	if annotation != "" {
		vm := object.NewVirtualMachine(s.Client.Client, ref)
		task, err := vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{Annotation: annotation})
		if err == nil {
			err = task.Wait(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return ref.Value
}

// Exists reports whether the VM with managed object id ref exists.
func (s *Sim) Exists(ref string) bool {
	return s.Model.Map().Get(types.ManagedObjectReference{Type: "VirtualMachine", Value: ref}) != nil
}

// Remove powers off and destroys the VM with managed object id ref.
func (s *Sim) Remove(t testing.TB, ref string) {
	t.Helper()
	ctx := context.Background()
	vm := object.NewVirtualMachine(s.Client.Client, types.ManagedObjectReference{Type: "VirtualMachine", Value: ref})
	if task, err := vm.PowerOff(ctx); err == nil {
		_ = task.Wait(ctx) // already off is fine
	}
	task, err := vm.Destroy(ctx)
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("remove %s: %v", ref, err)
	}
}

// DisableDRS turns DRS off on the cluster.
func (s *Sim) DisableDRS(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	f := find.NewFinder(s.Client.Client, true)
	dc, err := f.Datacenter(ctx, Datacenter)
	if err != nil {
		t.Fatal(err)
	}
	f.SetDatacenter(dc)
	cl, err := f.ClusterComputeResource(ctx, Cluster)
	if err != nil {
		t.Fatal(err)
	}
	task, err := cl.Reconfigure(ctx, &types.ClusterConfigSpecEx{DrsConfig: &types.ClusterDrsConfigInfo{Enabled: types.NewBool(false)}}, true)
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("disable DRS: %v", err)
	}
}

// DRSOverride reports whether the cluster has a DRS override disabling
// DRS for the VM with managed object id ref.
func (s *Sim) DRSOverride(ref string) bool {
	for _, obj := range s.Model.Map().All("ClusterComputeResource") {
		cfg, ok := obj.(*simulator.ClusterComputeResource).ConfigurationEx.(*types.ClusterConfigInfoEx)
		if !ok {
			continue
		}
		for _, o := range cfg.DrsVmConfig {
			if o.Key.Value == ref && o.Enabled != nil && !*o.Enabled {
				return true
			}
		}
	}
	return false
}

// HostRef returns the managed object id of the named host ("" if none).
func (s *Sim) HostRef(name string) string {
	for _, obj := range s.Model.Map().All("HostSystem") {
		if h := obj.(*simulator.HostSystem); h.Name == name {
			return h.Self.Value
		}
	}
	return ""
}

// Rules returns the cluster's VM–VM affinity rules: the VMs' managed
// object ids by rule name.
func (s *Sim) Rules() map[string][]string {
	out := map[string][]string{}
	for _, obj := range s.Model.Map().All("ClusterComputeResource") {
		cfg, ok := obj.(*simulator.ClusterComputeResource).ConfigurationEx.(*types.ClusterConfigInfoEx)
		if !ok {
			continue
		}
		for _, r := range cfg.Rule {
			if a, ok := r.(*types.ClusterAffinityRuleSpec); ok {
				for _, vm := range a.Vm {
					out[a.Name] = append(out[a.Name], vm.Value)
				}
			}
		}
	}
	return out
}
