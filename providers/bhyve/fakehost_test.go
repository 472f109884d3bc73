package bhyve

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// fakeHost plays a FreeBSD 14 host with vm-bhyve and bhyve for the
// in-process SSH server: it keeps VMs, switches, interfaces, ZFS datasets
// and vmm devices, and answers the commands the provider runs in the
// shapes FreeBSD prints. fail injects failures: the first rule whose
// expression matches a command answers it instead.
type fakeHost struct {
	mu       sync.Mutex
	vms      map[string]string // vm-bhyve VM → "Stopped", "Running (N)"
	switches map[string]bool
	ifaces   map[string]string // name → description
	datasets map[string]bool
	vmm      map[string]bool
	running  map[string]bool // raw-mode bhyve processes by VM
	nBridge  int
	nTap     int
	fail     []failRule
}

type failRule struct {
	re     *regexp.Regexp
	stderr string
	exit   int
}

func newFakeHost() *fakeHost {
	return &fakeHost{vms: map[string]string{"fbsd14-tmpl": "Stopped", "ubuntu-tmpl": "Stopped"}, switches: map[string]bool{"public": true},
		ifaces:   map[string]string{"igb0": "", "igb1": "", "vm-public": "", "lo0": ""},
		datasets: map[string]bool{"zroot/vm": true, "zroot/vm/fbsd14-zvol": true, "zroot/vm/ubuntu-zvol": true},
		vmm:      map[string]bool{}, running: map[string]bool{}}
}

// failOn makes commands matching expr fail with stderr and exit status.
func (h *fakeHost) failOn(expr, stderr string, exit int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fail = append(h.fail, failRule{regexp.MustCompile(expr), stderr, exit})
}

func (h *fakeHost) handle(cmd string, stdin io.Reader) (string, string, int) {
	_, _ = io.Copy(io.Discard, stdin)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.fail {
		if r.re.MatchString(cmd) {
			return "", r.stderr, r.exit
		}
	}
	f := strings.Fields(cmd)
	last := f[len(f)-1]
	switch {
	case cmd == "vm list":
		var b strings.Builder
		fmt.Fprintf(&b, "%-20s %-10s %-10s %-4s %-7s %-4s %-6s %s\n", "NAME", "DATASTORE", "LOADER", "CPU", "MEMORY", "VNC", "AUTO", "STATE")
		for _, n := range sortedSet(h.vms) {
			fmt.Fprintf(&b, "%-20s %-10s %-10s %-4s %-7s %-4s %-6s %s\n", n, "default", "bhyveload", "1", "1024M", "-", "No", h.vms[n])
		}
		return b.String(), "", 0
	case cmd == "vm switch list":
		var b strings.Builder
		fmt.Fprintf(&b, "NAME        TYPE      IFACE          ADDRESS  PRIVATE  MTU   VLAN  PORTS\n")
		for _, n := range sortedSet(h.switches) {
			fmt.Fprintf(&b, "%-11s standard  vm-%-11s -        no       -     -     -\n", n, n)
		}
		return b.String(), "", 0
	case strings.HasPrefix(cmd, "vm switch create "):
		h.switches[last] = true
		h.ifaces["vm-"+last] = ""
	case strings.HasPrefix(cmd, "vm switch destroy "):
		if !h.switches[last] {
			return "", "/usr/local/sbin/vm: unable to locate switch id\n", 1
		}
		delete(h.switches, last)
		delete(h.ifaces, "vm-"+last)
	case strings.HasPrefix(cmd, "vm switch add "):
	case strings.HasPrefix(cmd, "vm clone "):
		if h.vms[f[2]] == "" {
			return "", fmt.Sprintf("/usr/local/sbin/vm: %s does not exist\n", f[2]), 1
		}
		h.vms[last] = "Stopped"
		h.datasets["zroot/vm/"+last] = true
	case strings.HasPrefix(cmd, "zfs get -Hp -o value guid,createtxg,referenced "):
		// zfs-get(8): -H drops headers, -p prints exact numbers, -o value
		// only the values, one line per property in the order asked. A
		// vm-bhyve VM on a ZFS datastore is the dataset <datastore>/<vm>.
		name := strings.TrimPrefix(last, "zroot/vm/")
		if !h.datasets[last] && h.vms[name] == "" {
			return "", fmt.Sprintf("cannot open '%s': dataset does not exist\n", last), 1
		}
		return fmt.Sprintf("%d\n57\n2147483648\n", 1000+len(name)), "", 0
	case strings.HasPrefix(cmd, "zfs get -H -o value mountpoint "):
		return "/zroot/vm\n", "", 0
	case strings.HasPrefix(cmd, "sysrc -f "):
		var b strings.Builder
		for _, kv := range f[3:] {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&b, "%s:  -> %s\n", k, v)
		}
		return b.String(), "", 0
	case strings.HasPrefix(cmd, "vm start "):
		h.vms[last] = "Running (4242)"
		return "Starting " + last + "\n  * found guest in /zroot/vm/" + last + "\n  * booting...\n", "", 0
	case strings.HasPrefix(cmd, "vm poweroff -f "):
		h.vms[last] = "Stopped"
	case strings.HasPrefix(cmd, "vm destroy -f "):
		delete(h.vms, last)
		delete(h.datasets, "zroot/vm/"+last)
	case cmd == "arp -an":
		var b strings.Builder
		b.WriteString("? (192.0.2.1) at 00:0d:b9:4b:2a:10 on igb0 expires in 1012 seconds [ethernet]\n")
		i := 10
		for _, n := range append(sortedSet(h.vms), sortedSet(h.running)...) {
			if strings.HasPrefix(h.vms[n], "Running") || h.running[n] {
				fmt.Fprintf(&b, "? (198.18.0.%d) at %s on vm-public expires in 1187 seconds [ethernet]\n", i, MAC(n))
			}
			i++
		}
		return b.String(), "", 0
	case cmd == "ifconfig bridge create":
		n := fmt.Sprintf("bridge%d", h.nBridge)
		h.nBridge++
		h.ifaces[n] = ""
		return n + "\n", "", 0
	case cmd == "ifconfig tap create":
		n := fmt.Sprintf("tap%d", h.nTap)
		h.nTap++
		h.ifaces[n] = ""
		return n + "\n", "", 0
	case len(f) >= 4 && f[0] == "ifconfig" && f[2] == "description":
		if _, ok := h.ifaces[f[1]]; !ok {
			return "", "ifconfig: interface " + f[1] + " does not exist\n", 1
		}
		h.ifaces[f[1]] = f[3]
	case len(f) == 4 && f[0] == "ifconfig" && f[2] == "addm":
	case len(f) == 3 && f[0] == "ifconfig" && f[2] == "destroy":
		delete(h.ifaces, f[1])
	case cmd == "ifconfig":
		var b strings.Builder
		for _, n := range sortedSet(h.ifaces) {
			fmt.Fprintf(&b, "%s: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n", n)
			if d := h.ifaces[n]; d != "" {
				fmt.Fprintf(&b, "\tdescription: %s\n", d)
			}
			fmt.Fprintf(&b, "\toptions=80000<LINKSTATE>\n")
		}
		return b.String(), "", 0
	case strings.HasPrefix(cmd, "zfs snapshot "):
		h.datasets[last] = true
	case strings.HasPrefix(cmd, "zfs clone "):
		h.datasets[last] = true
	case strings.HasPrefix(cmd, "zfs list "):
		var b strings.Builder
		for _, n := range sortedSet(h.datasets) {
			if strings.Contains(n, "@") && !strings.Contains(cmd, "snapshot") {
				continue
			}
			b.WriteString(n + "\n")
		}
		return b.String(), "", 0
	case strings.HasPrefix(cmd, "zfs destroy "):
		for n := range h.datasets {
			if strings.HasPrefix(n, last+"@") {
				return "", "cannot destroy '" + last + "': filesystem has children\n", 1
			}
		}
		delete(h.datasets, last)
	case strings.HasPrefix(cmd, "bhyveload "):
	case strings.HasPrefix(cmd, "daemon "):
		h.vmm[last], h.running[last] = true, true
	case strings.HasPrefix(cmd, "pgrep -F "):
		vm := strings.TrimSuffix(strings.TrimPrefix(last, "/var/run/"), ".pid")
		if !h.running[vm] {
			return "", "", 1
		}
		return "4243\n", "", 0
	case strings.HasPrefix(cmd, "tail -n 20 "):
		return "vm exit[0]: unhandled VMEXIT, rip 0xffffffff80c2a1f0\nbhyve: failed to initialize vCPU 0\n", "", 0
	case cmd == "ls /dev/vmm":
		if len(h.vmm) == 0 {
			return "", "ls: /dev/vmm: No such file or directory\n", 1
		}
		return strings.Join(sortedSet(h.vmm), "\n") + "\n", "", 0
	case strings.HasPrefix(cmd, "bhyvectl ") && strings.HasSuffix(cmd, "--force-poweroff"):
		h.running[strings.TrimPrefix(f[1], "--vm=")] = false
	case strings.HasPrefix(cmd, "bhyvectl ") && strings.HasSuffix(cmd, "--destroy"):
		vm := strings.TrimPrefix(f[1], "--vm=")
		delete(h.vmm, vm)
		delete(h.running, vm)
	case strings.HasPrefix(cmd, "rm -f "):
	default:
		return "", "fakehost: unknown command " + cmd + "\n", 127
	}
	return "", "", 0
}

// left lists what of lab's remains on the host ("lab-" names).
func (h *fakeHost) left() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, set := range []map[string]bool{keys(h.vms), h.switches, keys(h.ifaces), h.datasets, h.vmm} {
		for n := range set {
			if strings.Contains(n, "lab-") || strings.HasPrefix(n, "l") && len(n) == 9 {
				out = append(out, n)
			}
		}
	}
	for n, d := range h.ifaces {
		if strings.HasPrefix(d, "lab-") {
			out = append(out, n+" ("+d+")")
		}
	}
	sort.Strings(out)
	return out
}

func keys[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func sortedSet[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
