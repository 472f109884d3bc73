package libvirt

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// PinConfig is the provider block's cpu_pin {}: which host CPUs each role's
// vCPUs and QEMU's own threads may run on (libvirt's <cputune>). A set
// with as many CPUs as the guest has vCPUs pins one vCPU to each, in
// order (vCPU 0 to the lowest); any other set is shared by all the
// guest's vCPUs.
type PinConfig struct {
	Server   hcl.Expression `hcl:"server,optional"`
	Client   hcl.Expression `hcl:"client,optional"`
	Router   hcl.Expression `hcl:"router,optional"`
	Emulator hcl.Expression `hcl:"emulator,optional"`
}

// cpuSet is a parsed cpuset with where the spec wrote it.
type cpuSet struct {
	CPUs  []int // ascending, no duplicates
	Text  string
	Range hcl.Range
}

func (s cpuSet) String() string { return formatCPUs(s.CPUs) }

// pinning is cpu_pin {} decoded: a set per role, and the emulator's.
type pinning struct {
	Roles    map[string]cpuSet
	Emulator *cpuSet
}

// decodePin evaluates and parses cpu_pin {}; every bad set is a diagnostic
// on its attribute.
func decodePin(pc *PinConfig, ec *hcl.EvalContext) (*pinning, hcl.Diagnostics) {
	if pc == nil {
		return nil, nil
	}
	var diags hcl.Diagnostics
	p := &pinning{Roles: map[string]cpuSet{}}
	for _, a := range []struct {
		name string
		expr hcl.Expression
	}{{"server", pc.Server}, {"client", pc.Client}, {"router", pc.Router}, {"emulator", pc.Emulator}} {
		if a.expr == nil {
			continue
		}
		v, d := a.expr.Value(ec)
		diags = append(diags, d...)
		if d.HasErrors() || v.IsNull() {
			continue
		}
		if !v.IsKnown() {
			continue // a variable without a value during validate
		}
		if v.Type() == cty.Number {
			v = cty.StringVal(v.AsBigFloat().Text('f', -1))
		}
		if v.Type() != cty.String {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid cpuset",
				Detail:  fmt.Sprintf("cpu_pin %s must be a cpuset string like \"2-3\" or \"0,4,^2\".", a.name),
				Subject: a.expr.Range().Ptr()})
			continue
		}
		cpus, err := parseCPUSet(v.AsString())
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid cpuset",
				Detail:  fmt.Sprintf("cpu_pin %s = %q: %v.", a.name, v.AsString(), err),
				Subject: a.expr.Range().Ptr()})
			continue
		}
		s := cpuSet{CPUs: cpus, Text: v.AsString(), Range: a.expr.Range()}
		if a.name == "emulator" {
			p.Emulator = &s
		} else {
			p.Roles[a.name] = s
		}
	}
	return p, diags
}

// maxCPU bounds a cpuset's numbers (libvirt's own bitmaps stop at 8192
// too, VIR_DOMAIN_CPUMASK_LEN).
const maxCPU = 8191

// parseCPUSet reads libvirt's cpuset syntax (virBitmapParse): a comma list
// of CPUs ("3"), ranges ("0-3") and exclusions ("^2").
func parseCPUSet(s string) ([]int, error) {
	set := map[int]bool{}
	var excl []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, errors.New("an empty element")
		}
		neg := strings.HasPrefix(part, "^")
		part = strings.TrimPrefix(part, "^")
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if neg {
				return nil, fmt.Errorf("an exclusion is one CPU (^%s)", part)
			}
			if b, err = cpuNumber(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %s runs backwards", part)
			}
		}
		if neg {
			excl = append(excl, a)
			continue
		}
		for c := a; c <= b; c++ {
			set[c] = true
		}
	}
	for _, c := range excl {
		delete(set, c)
	}
	if len(set) == 0 {
		return nil, errors.New("no CPU left in the set")
	}
	out := make([]int, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Ints(out)
	return out, nil
}

func cpuNumber(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	if n > maxCPU {
		return 0, fmt.Errorf("CPU %d is beyond %d", n, maxCPU)
	}
	return n, nil
}

// formatCPUs writes CPUs back in libvirt's syntax, ranges folded ("0-2,5").
func formatCPUs(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// vcpuPins is the <vcpupin> list for a guest of vcpus vCPUs pinned to s:
// one CPU each when the counts match, else the whole set for each.
func vcpuPins(s cpuSet, vcpus int) []string {
	out := make([]string, vcpus)
	for i := range out {
		if len(s.CPUs) == vcpus {
			out[i] = strconv.Itoa(s.CPUs[i])
		} else {
			out[i] = s.String()
		}
	}
	return out
}

// beyondHost is an error naming the first set (by its spec position) that
// asks for a CPU the host does not have; hostCPUs is NodeGetInfo's count.
func (p *pinning) beyondHost(hostCPUs int, uri string) error {
	if p == nil || hostCPUs <= 0 {
		return nil
	}
	sets := []struct {
		name string
		s    cpuSet
	}{}
	for _, r := range []string{"server", "client", "router"} {
		if s, ok := p.Roles[r]; ok {
			sets = append(sets, struct {
				name string
				s    cpuSet
			}{r, s})
		}
	}
	if p.Emulator != nil {
		sets = append(sets, struct {
			name string
			s    cpuSet
		}{"emulator", *p.Emulator})
	}
	for _, x := range sets {
		if last := x.s.CPUs[len(x.s.CPUs)-1]; last >= hostCPUs {
			return fmt.Errorf("%s: cpu_pin %s = %q asks for CPU %d, but the libvirt host at %s has %d CPUs (0-%d)",
				x.s.Range, x.name, x.s.Text, last, uri, hostCPUs, hostCPUs-1)
		}
	}
	return nil
}

// hostCPUs asks libvirtd how many CPUs its host has (NodeGetInfo).
func (p *Provider) hostCPUs() (int, error) {
	l, err := p.conn()
	if err != nil {
		return 0, err
	}
	_, _, cpus, _, _, _, _, _, err := l.NodeGetInfo()
	if err != nil {
		return 0, callErr("NodeGetInfo", "", err)
	}
	return int(cpus), nil
}

// CheckTemplate is the plan's look at the libvirt host: whether accel =
// "kvm" can boot guests on this machine (accel.go, no dial), and, when
// cpu_pin {} asks for host CPUs, whether the pool and the template's
// volume exist (pool.go) and a CPU the host does not have fails the
// plan at the spec line that asks for it. With no daemon to dial (no
// socket, connection refused) the plan stays offline and the check waits
// for apply; a daemon that accepts and does not answer fails the plan
// within call_timeout.
func (p *Provider) CheckTemplate(ctx context.Context, m machine.Machine) (err error) {
	if err := p.checkAccel(); err != nil {
		return err
	}
	if p.pin == nil {
		return nil
	}
	defer p.explain(&err)
	n, err := p.hostCPUs()
	if err != nil {
		var st *StalledError
		if errors.As(err, &st) {
			return err
		}
		return nil
	}
	if l, err := p.conn(); err == nil {
		if err := checkPool(l, p.cfg.URI, p.cfg.Pool, m.Template.Source); err != nil {
			return err
		}
	}
	return p.pin.beyondHost(n, p.cfg.URI)
}

var _ providers.TemplateChecker = (*Provider)(nil)

// pinDomain fills ds's <cputune> for a guest of role, after checking the
// sets against the host's CPU count, and records them in in.Attrs.
func (p *Provider) pinDomain(ds *domainSpec, in *machine.Instance, role string) error {
	if p.pin == nil {
		return nil
	}
	set, pinned := p.pin.Roles[role]
	if !pinned && p.pin.Emulator == nil {
		return nil
	}
	n, err := p.hostCPUs()
	if err != nil {
		return err
	}
	if err := p.pin.beyondHost(n, p.cfg.URI); err != nil {
		return err
	}
	if pinned {
		ds.VCPUPins = vcpuPins(set, ds.VCPU)
		in.Attrs[attrVCPUPin] = strings.Join(ds.VCPUPins, " ")
	}
	if p.pin.Emulator != nil {
		ds.EmulatorPin = p.pin.Emulator.String()
		in.Attrs[attrEmulatorPin] = ds.EmulatorPin
	}
	return nil
}

// HostSettings is what a result records of the guest's placement on the
// libvirt host: the machine type and, when cpu_pin {} set them, the host
// CPUs of its vCPUs and of QEMU's own threads, the management NIC's
// network, the benchmark NIC's emulated device and host-side RX ring size
// and, on a host device, its link type and device, as recorded at create.
func (p *Provider) HostSettings(in machine.Instance) string {
	var parts []string
	for _, k := range []string{attrMachine, attrVCPUPin, attrEmulatorPin, attrMgmtNetwork, attrNICDevice, attrRXQueueSize, attrLinkType, attrLinkDev} {
		if v := in.Attrs[k]; v != "" {
			parts = append(parts, k+"="+strings.ReplaceAll(v, " ", ","))
		}
	}
	return strings.Join(parts, " ")
}

var _ providers.HostSettingsReporter = (*Provider)(nil)

// nicDevice names the device QEMU emulates for a NIC model, as results
// record it: "qemu-virtio", and for a model of another vendor's device
// whose results would otherwise pass for that hypervisor's, what it is not:
// QEMU's vmxnet3 (hw/net/vmxnet3.c, device revision 1) is QEMU's model of
// VMware's device, and its figures say nothing about ESXi.
func nicDevice(model string) string {
	if model == "vmxnet3" {
		return "qemu-vmxnet3-not-ESXi"
	}
	return "qemu-" + model
}
