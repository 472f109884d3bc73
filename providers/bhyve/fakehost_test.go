package bhyve

import (
	"crypto/md5"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeHost plays a FreeBSD 14 host with vm-bhyve 1.7 and bhyve for the
// in-process SSH server. It keeps VMs, switches, interfaces (MTU, bridge
// members, descriptions), ZFS datasets and snapshots and vmm devices, and
// answers the commands the provider runs in the shapes FreeBSD and
// vm-bhyve print; each reply names the source it follows.
//
// vm-bhyve's VMs follow its real state sequence in time. `vm start` only
// launches `vm _run` in the background (lib/vm-core core::__start) and
// returns; the VM then shows in `vm list` (lib/vm-core core::list,
// lib/vm-run vm::running_check) as
//
//	Stopped          until vm::run has made the taps and written run.lock
//	Bootloader (PID) while bhyveload runs (FreeBSD guests: it waits
//	                 autoboot_delay = loader_timeout, 3 s by default,
//	                 lib/vm-guest guest::load); UEFI guests skip it
//	Running (PID)    while bhyve runs
//	Locked (HOST)    after bhyve exited, while vm::run destroys the taps
//	                 and the vmm device, until vm::unlock removes run.lock
//	Stopped
//
// The durations are those of the real host scaled down (timing).
// fail injects failures: the first rule whose expression matches a
// command answers it instead.
type fakeHost struct {
	mu       sync.Mutex
	timing   fakeTiming
	vms      map[string]*fakeVM
	autoList []string               // rc.conf vm_list: AUTO "Yes [n]"
	switches map[string]*fakeSwitch // vm-bhyve switches by name
	// sysConf is the rest of VM_DIR/.config/system.conf: the keys
	// other than vm-bhyve's own switch_list/type_NAME/… (which switches
	// stands for), i.e. lab's lab_owner_NAME records.
	sysConf  map[string]string
	ifaces   map[string]*fakeIface
	datasets map[string]*fakeDS // ZFS datasets and snapshots
	vmm      map[string]bool    // raw-mode /dev/vmm entries
	running  map[string]bool    // raw-mode bhyve processes by VM
	nBridge  int
	nTap     int
	nPID     int
	fail     []failRule
	kill     *killRule
}

// killRule stops the lab talking to the host (kill -9) right after a
// command: see killAfter.
type killRule struct {
	re *regexp.Regexp
	// halfway, when set, runs instead of the command: what the command
	// itself had done when it was killed with lab.
	halfway func(h *fakeHost, f []string)
	dead    bool
}

// fakeTiming is how long each of vm-bhyve's background steps takes.
type fakeTiming struct {
	lock     time.Duration // vm start → run.lock (vm::run: config, taps)
	loader   time.Duration // bhyveload (real: loader_timeout, 3 s, and the kernel load)
	teardown time.Duration // bhyve exit → run.lock removed (taps, vmm destroyed)
}

// fakeVM is a vm-bhyve VM and where its background run is.
type fakeVM struct {
	loader   string // "bhyveload" or "uefi"
	cpu, mem string
	started  time.Time // zero: not started
	off      time.Time // poweroff; zero: none
	pid      int
	// runFails makes vm::run stop before it locks the VM, logging this
	// line (as it does for a missing loader or firmware).
	runFails string
	// staleLock is the host named in a run.lock left behind (a host
	// that crashed, or another host sharing the datastore): core::list
	// shows "Locked (HOST)" and nothing removes it.
	staleLock string
	log       []string
	// nets are the switches of the VM's NICs by number: its .conf's
	// networkN_switch, as sysrc set them (none: network0 on switchOf).
	nets map[int]string
}

// fakeDS is a ZFS dataset or snapshot.
type fakeDS struct {
	origin string // a clone's origin snapshot
	owner  string // user property lab:owner ("" unset)
}

type fakeSwitch struct {
	vale  bool
	mtu   int
	ports []string
}

type fakeIface struct {
	desc    string
	mtu     int
	members []string // bridges
	group   string
}

type failRule struct {
	re     *regexp.Regexp
	stderr string
	exit   int
}

// hostName is what hostname(1) prints on the fake host: vm::lock writes
// it into run.lock and core::list shows "Locked (hostName)".
const hostName = "bhyve1"

// vmErr is util::err's message (lib/vm-util): "$0: ERROR: MSG" on stderr,
// exit 1; $0 is the vm script's path.
func vmErr(msg string) (string, string, int) {
	return "", "/usr/local/sbin/vm: ERROR: " + msg + "\n", 1
}

// vmWarn is util::warn's message (lib/vm-util): "$0: WARNING: MSG".
func vmWarn(msg string) string { return "/usr/local/sbin/vm: WARNING: " + msg + "\n" }

func newFakeHost() *fakeHost {
	h := &fakeHost{
		timing:   fakeTiming{lock: 10 * time.Millisecond, loader: 40 * time.Millisecond, teardown: 15 * time.Millisecond},
		vms:      map[string]*fakeVM{},
		switches: map[string]*fakeSwitch{"public": {ports: []string{"igb0"}}},
		ifaces: map[string]*fakeIface{"igb0": {mtu: 1500, members: nil}, "igb1": {mtu: 1500}, "lo0": {mtu: 16384},
			"vm-public": {mtu: 1500, members: []string{"igb0"}, group: "vm-switch"}},
		datasets: map[string]*fakeDS{"zroot/vm": {}},
		vmm:      map[string]bool{}, running: map[string]bool{}, nPID: 4240,
		sysConf: map[string]string{},
	}
	// Templates: vm-bhyve guests with a zvol disk (dataset + disk0), and
	// zvols for raw mode. gw is a router VM started at boot (vm_list),
	// so its AUTO column reads "Yes [1]".
	for _, t := range []struct{ name, loader string }{{"fbsd14-tmpl", "bhyveload"}, {"ubuntu-tmpl", "uefi"}, {"gw", "bhyveload"}} {
		h.vms[t.name] = &fakeVM{loader: t.loader, cpu: "1", mem: "1024M"}
		h.datasets["zroot/vm/"+t.name], h.datasets["zroot/vm/"+t.name+"/disk0"] = &fakeDS{}, &fakeDS{}
	}
	h.datasets["zroot/vm/fbsd14-zvol"], h.datasets["zroot/vm/ubuntu-zvol"] = &fakeDS{}, &fakeDS{}
	h.autoList = []string{"gw"}
	h.vms["gw"].started = time.Now().Add(-time.Hour)
	h.vms["gw"].pid = 1432
	return h
}

// failOn makes commands matching expr fail with stderr and exit status.
func (h *fakeHost) failOn(expr, stderr string, exit int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fail = append(h.fail, failRule{regexp.MustCompile(expr), stderr, exit})
}

// phase is where vm's background run is at now: its `vm list` state,
// whether run.lock exists and whether /dev/vmm/<vm> does.
func (h *fakeHost) phase(name string, now time.Time) (state string, locked, vmm bool) {
	v := h.vms[name]
	if v.staleLock != "" {
		return "Locked (" + v.staleLock + ")", true, false
	}
	if v.started.IsZero() || v.runFails != "" {
		return "Stopped", false, false
	}
	tLock := v.started.Add(h.timing.lock)
	tBhyve := tLock
	if v.loader == "bhyveload" {
		tBhyve = tLock.Add(h.timing.loader)
	}
	// bhyve exits at the poweroff, or, powered off while loading, as soon
	// as it starts: the VM is suspended and bhyve's first VM exit is
	// VM_EXITCODE_SUSPENDED (usr.sbin/bhyve bhyverun.c, vmexit_suspend).
	end := time.Time{}
	if !v.off.IsZero() {
		end = v.off
		if end.Before(tBhyve) {
			end = tBhyve
		}
	}
	switch {
	case now.Before(tLock):
		return "Stopped", false, false
	case now.Before(tBhyve) && (end.IsZero() || now.Before(end)):
		return fmt.Sprintf("Bootloader (%d)", v.pid), true, true
	case end.IsZero() || now.Before(end):
		return fmt.Sprintf("Running (%d)", v.pid+1), true, true
	case now.Before(end.Add(h.timing.teardown)):
		return "Locked (" + hostName + ")", true, true
	}
	// vm::unlock ran: the VM is stopped and can start again.
	v.started, v.off = time.Time{}, time.Time{}
	return "Stopped", false, false
}

// columnT prints rows as column -t does (usr.bin/column/column.c,
// maketbl): each column but the last padded to its widest cell plus two
// spaces. vm list and vm switch list pipe their rows through `column -ts^`.
func columnT(rows [][]string) string {
	width := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c + "\n")
			} else {
				b.WriteString(c + strings.Repeat(" ", width[i]-len(c)+2))
			}
		}
	}
	return b.String()
}

// killAfter kills lab right after the first command matching expr has
// run (or, with halfway, instead of it): from then on no command of
// anyone reaches the host until revive — what a kill -9 of lab between
// two commands looks like from the host.
func (h *fakeHost) killAfter(expr string, halfway func(h *fakeHost, f []string)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.kill = &killRule{re: regexp.MustCompile(expr), halfway: halfway}
}

// killed reports whether the kill has happened (and not been revived).
func (h *fakeHost) killed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.kill != nil && h.kill.dead
}

// revive lets commands reach the host again: the next lab runs.
func (h *fakeHost) revive() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.kill = nil
}

func (h *fakeHost) handle(cmd string, stdin io.Reader) (string, string, int) {
	_, _ = io.Copy(io.Discard, stdin)
	h.mu.Lock()
	defer h.mu.Unlock()
	if k := h.kill; k != nil {
		switch {
		case k.dead:
			return "", "fakehost: lab was killed\n", 255
		case k.re.MatchString(cmd):
			k.dead = true
			if k.halfway != nil {
				k.halfway(h, splitWords(cmd))
				return "", "fakehost: lab was killed\n", 255
			}
			h.kill = nil
			out, errOut, code := h.handle0(cmd)
			h.kill = k
			if code != 0 {
				return out, "fakehost: the command at the kill point failed: " + errOut, code
			}
			return "", "fakehost: lab was killed\n", 255
		}
	}
	return h.handle0(cmd)
}

// handle0 answers one command; h.mu is held.
func (h *fakeHost) handle0(cmd string) (string, string, int) {
	for _, r := range h.fail {
		if r.re.MatchString(cmd) {
			return "", r.stderr, r.exit
		}
	}
	f := splitWords(cmd)
	if len(f) >= 2 && f[0] == "vm" {
		return h.vmCmd(cmd, f)
	}
	if f[0] == "ifconfig" {
		return h.ifconfig(f)
	}
	if f[0] == "zfs" {
		return h.zfs(cmd, f)
	}
	last := f[len(f)-1]
	switch {
	case strings.HasPrefix(cmd, "sysrc -f "+systemConf+" "):
		return h.sysrcSystemConf(f[3:])
	case strings.HasPrefix(cmd, "sysrc -f "):
		// sysrc(8): "name: old -> new" per assignment.
		var b strings.Builder
		vm := strings.TrimSuffix(strings.TrimPrefix(f[2], "/zroot/vm/"), "")
		vm, _, _ = strings.Cut(vm, "/")
		for _, kv := range f[3:] {
			k, val, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&b, "%s:  -> %s\n", k, val)
			if v := h.vms[vm]; v != nil && k == "cpu" {
				v.cpu = val
			} else if v != nil && k == "memory" {
				v.mem = val
			} else if n, ok := strings.CutSuffix(strings.TrimPrefix(k, "network"), "_switch"); v != nil && ok && strings.HasPrefix(k, "network") {
				if i, err := strconv.Atoi(n); err == nil {
					if v.nets == nil {
						v.nets = map[int]string{}
					}
					v.nets[i] = val
				}
			}
		}
		return b.String(), "", 0
	case cmd == "arp -an":
		// arp(8) -an: "? (IP) at MAC on IFACE expires in N seconds [ethernet]".
		var b strings.Builder
		b.WriteString("? (192.0.2.1) at 00:0d:b9:4b:2a:10 on igb0 expires in 1012 seconds [ethernet]\n")
		now := time.Now()
		i := 10
		for _, n := range sortedSet(h.vms) {
			if st, _, _ := h.phase(n, now); strings.HasPrefix(st, "Running") && n != "gw" {
				fmt.Fprintf(&b, "? (198.18.0.%d) at %s on vm-public expires in 1187 seconds [ethernet]\n", i, MAC(n))
			}
			i++
		}
		for _, n := range sortedSet(h.running) {
			if h.running[n] {
				fmt.Fprintf(&b, "? (198.18.0.%d) at %s on vm-public expires in 1187 seconds [ethernet]\n", i, MAC(n))
			}
			i++
		}
		return b.String(), "", 0
	case strings.HasPrefix(cmd, "tail -n 20 /zroot/vm/"):
		// A guest's vm-bhyve.log: util::log lines, "DATE: MESSAGE".
		vm := strings.Split(strings.TrimPrefix(last, "/zroot/vm/"), "/")[0]
		if v := h.vms[vm]; v != nil {
			return strings.Join(v.log, "\n") + "\n", "", 0
		}
		return "", "tail: " + last + ": No such file or directory\n", 1
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

// systemConf is vm-bhyve's core configuration on the fake host: VM_DIR
// (zroot/vm's mountpoint, lib/vm-zfs zfs::init) + /.config/system.conf
// (lib/vm-config config::core::load).
const systemConf = "/zroot/vm/.config/system.conf"

// sysrcSystemConf answers `sysrc -f system.conf ARGS` for lab's keys, as
// usr.sbin/sysrc/sysrc's argument loop does: "-n NAME" prints the value
// (f_sysrc_get) or, unset, "sysrc: unknown variable 'NAME'" on stderr
// and exit 1; "-x NAME" deletes it silently (f_sysrc_delete,
// usr.sbin/bsdconfig/share/sysrc.subr), or fails the same way when
// unset; "NAME=VALUE" sets it and prints "NAME: OLD -> NEW".
func (h *fakeHost) sysrcSystemConf(args []string) (string, string, int) {
	unknown := func(k string) (string, string, int) { return "", "sysrc: unknown variable '" + k + "'\n", 1 }
	switch {
	case len(args) == 2 && args[0] == "-n":
		v, ok := h.sysConf[args[1]]
		if !ok {
			return unknown(args[1])
		}
		return v + "\n", "", 0
	case len(args) == 2 && args[0] == "-x":
		if _, ok := h.sysConf[args[1]]; !ok {
			return unknown(args[1])
		}
		delete(h.sysConf, args[1])
		return "", "", 0
	case len(args) == 1 && strings.Contains(args[0], "="):
		k, v, _ := strings.Cut(args[0], "=")
		old := h.sysConf[k]
		h.sysConf[k] = v
		return k + ": " + old + " -> " + v + "\n", "", 0
	}
	return "", "fakehost: unexpected sysrc arguments " + strings.Join(args, " ") + "\n", 127
}

// vmCmd answers vm-bhyve's vm(8).
func (h *fakeHost) vmCmd(cmd string, f []string) (string, string, int) {
	now := time.Now()
	last := f[len(f)-1]
	switch {
	case cmd == "vm list":
		// lib/vm-core core::list: NAME DATASTORE LOADER CPU MEMORY VNC AUTO
		// STATE through column -ts^; AUTO is "Yes [n]" for the n-th VM of
		// vm_list, else "No"; a stopped VM with run.lock is "Locked (host)".
		rows := [][]string{{"NAME", "DATASTORE", "LOADER", "CPU", "MEMORY", "VNC", "AUTO", "STATE"}}
		for _, n := range sortedSet(h.vms) {
			v := h.vms[n]
			st, _, _ := h.phase(n, now)
			if n == "gw" {
				st = fmt.Sprintf("Running (%d)", v.pid)
			}
			auto := "No"
			for i, a := range h.autoList {
				if a == n {
					auto = fmt.Sprintf("Yes [%d]", i+1)
				}
			}
			rows = append(rows, []string{n, "default", v.loader, v.cpu, v.mem, "-", auto, st})
		}
		return columnT(rows), "", 0
	case cmd == "vm switch list":
		// lib/vm-switch switch::list and switch::standard::show /
		// switch::vale::show: NAME TYPE IFACE ADDRESS PRIVATE MTU VLAN PORTS.
		rows := [][]string{{"NAME", "TYPE", "IFACE", "ADDRESS", "PRIVATE", "MTU", "VLAN", "PORTS"}}
		for _, n := range sortedSet(h.switches) {
			s := h.switches[n]
			if s.vale {
				// switch::vale::show prints switch::vale::id's
				// "vale" + the first 5 hex digits of `md5 -qs NAME`.
				rows = append(rows, []string{n, "vale", fmt.Sprintf("vale%x", md5.Sum([]byte(n)))[:9], "n/a", "n/a", "n/a", "n/a", "n/a"})
				continue
			}
			mtu, ports := "-", "-"
			if s.mtu > 0 {
				mtu = strconv.Itoa(s.mtu)
			}
			if len(s.ports) > 0 {
				ports = strings.Join(s.ports, " ")
			}
			rows = append(rows, []string{n, "standard", "vm-" + n, "-", "no", mtu, "-", ports})
		}
		return columnT(rows), "", 0
	case strings.HasPrefix(cmd, "vm switch create "):
		// lib/vm-switch switch::create; switch::standard::init: `ifconfig
		// bridge create name vm-NAME group vm-switch up`, then the MTU.
		if h.switches[last] != nil {
			return vmErr("switch " + last + " already exists")
		}
		s := &fakeSwitch{}
		for i := 3; i+1 < len(f); i++ {
			switch f[i] {
			case "-t":
				s.vale = f[i+1] == "vale"
			case "-m":
				s.mtu, _ = strconv.Atoi(f[i+1])
			}
		}
		h.switches[last] = s
		if !s.vale {
			h.ifaces["vm-"+last] = &fakeIface{mtu: max(s.mtu, 1500), group: "vm-switch"}
		}
	case strings.HasPrefix(cmd, "vm switch destroy "):
		// switch::remove → switch::standard::remove: deletem the ports,
		// destroy the bridge; switch::vale::remove does nothing. Then
		// config::core::remove drops switch_list's entry and ports_,
		// vlan_, nat_, type_, addr_, private_, mtu_NAME — not lab's
		// lab_owner_NAME, which sysConf keeps.
		s := h.switches[last]
		if s == nil {
			return vmErr("unable to remove switch of unknown type")
		}
		if !s.vale {
			for _, p := range s.ports {
				h.removeMember("vm-"+last, p)
			}
			delete(h.ifaces, "vm-"+last)
		}
		delete(h.switches, last)
	case strings.HasPrefix(cmd, "vm switch add "):
		// switch::add_member: vale → util::err (lib/vm-switch-vale);
		// standard → __configure_port: `ifconfig PORT mtu MTU` (errors
		// discarded), `ifconfig BRIDGE addm PORT` or util::err.
		sw, port := f[3], f[4]
		s := h.switches[sw]
		if s == nil {
			return vmErr("unable to configure switch of unknown type")
		}
		if s.vale {
			return vmErr("physical interfaces must be added to the vale switch manually")
		}
		if s.mtu > 0 {
			h.setMTU(port, s.mtu)
		}
		if errno := h.addMember("vm-"+sw, port); errno != "" {
			return vmErr("failed to add member " + port + " to the virtual switch " + sw)
		}
		s.ports = append(s.ports, port)
	case len(f) == 4 && f[1] == "clone":
		return h.vmClone(f[2], f[3])
	case strings.HasPrefix(cmd, "vm start "):
		// core::__start: checks, then `vm _run NAME &` and return.
		v := h.vms[last]
		out := "Starting " + last + "\n"
		if v == nil {
			return out + "  ! " + last + " does not seem to be a valid virtual machine\n", "", 1
		}
		out += "  * found guest in /zroot/vm/" + last + "\n"
		if _, locked, vmm := h.phase(last, now); locked || vmm {
			return out + "  ! guest appears to be running already\n", "", 1
		}
		v.started, v.off = now, time.Time{}
		h.nPID += 2
		v.pid = h.nPID
		date := now.UTC().Format("2006-01-02T15:04:05+00:00")
		v.log = []string{date + ": initialising", date + ": [loader: " + v.loader + "]"}
		if v.runFails != "" {
			v.log = append(v.log, date+": "+v.runFails)
		} else {
			v.log = append(v.log, date+": booting")
		}
		return out + "  * booting...\n", "", 0
	case strings.HasPrefix(cmd, "vm poweroff -f "):
		// core::poweroff: needs /dev/vmm/NAME, then bhyvectl --force-poweroff.
		if h.vms[last] == nil {
			return vmErr(last + " doesn't appear to be a running virtual machine")
		}
		if _, _, vmm := h.phase(last, now); !vmm {
			return vmErr(last + " doesn't appear to be a running virtual machine")
		}
		if v := h.vms[last]; v.off.IsZero() {
			v.off = now
		}
	case strings.HasPrefix(cmd, "vm destroy -f "):
		// core::destroy: vm::confirm_stopped refuses while run.lock exists
		// ("appears to be running on HOST (locked)") or /dev/vmm/NAME does,
		// then zfs destroy -rf the dataset.
		if h.vms[last] == nil {
			return vmErr(last + " doesn't appear to be a valid virtual machine")
		}
		_, locked, vmm := h.phase(last, now)
		switch {
		case locked && h.vms[last].staleLock != "":
			return "", vmWarn(last + " appears to be running on " + h.vms[last].staleLock + " (locked)"), 1
		case locked:
			return "", vmWarn(last + " appears to be running on " + hostName + " (locked)"), 1
		case vmm:
			return "", vmWarn(last + " appears to be running locally (vmm exists)"), 1
		}
		delete(h.vms, last)
		for n := range h.datasets {
			if n == "zroot/vm/"+last || strings.HasPrefix(n, "zroot/vm/"+last+"/") || strings.HasPrefix(n, "zroot/vm/"+last+"@") {
				delete(h.datasets, n)
			}
		}
	default:
		return "", "fakehost: unknown command " + cmd + "\n", 127
	}
	return "", "", 0
}

// vmClone is lib/vm-zfs zfs::clone: with SRC@SNAP every dataset of SRC
// must have that snapshot; without, it snapshots SRC recursively under
// the first part of a fresh UUID (and leaves that snapshot behind).
func (h *fakeHost) vmClone(src, name string) (string, string, int) {
	if h.vms[name] != nil {
		return vmErr("new guest already exists in /zroot/vm/" + name)
	}
	old, snap, custom := strings.Cut(src, "@")
	if h.vms[old] == nil {
		return vmErr(old + " does not appear to be an existing virtual machine")
	}
	var fsList []string
	for n := range h.datasets {
		if (n == "zroot/vm/"+old || strings.HasPrefix(n, "zroot/vm/"+old+"/")) && !strings.Contains(n, "@") {
			fsList = append(fsList, n)
		}
	}
	sort.Strings(fsList)
	if !custom {
		if _, locked, vmm := h.phase(old, time.Now()); locked || vmm {
			return "", vmWarn(old + " appears to be running on " + hostName + " (locked)"), 1
		}
		snap = fmt.Sprintf("%08x", len(h.datasets)*2654435761%(1<<32))
		for _, fs := range fsList {
			h.datasets[fs+"@"+snap] = &fakeDS{}
		}
	} else {
		for _, fs := range fsList {
			if _, ok := h.datasets[fs+"@"+snap]; !ok {
				return vmErr("snapshot " + fs + "@" + snap + " doesn't seem to exist")
			}
		}
	}
	for _, fs := range fsList {
		h.datasets[strings.Replace(fs, "zroot/vm/"+old, "zroot/vm/"+name, 1)] = &fakeDS{origin: fs + "@" + snap}
	}
	o := h.vms[old]
	h.vms[name] = &fakeVM{loader: o.loader, cpu: o.cpu, mem: o.mem, runFails: o.runFails}
	return "", "", 0
}

// zfs answers zfs(8) as OpenZFS 2.2 on FreeBSD 14 does.
func (h *fakeHost) zfs(cmd string, f []string) (string, string, int) {
	last := f[len(f)-1]
	// Options before the operands: -r, -o PROP=VALUE (zfs-snapshot(8),
	// zfs-clone(8) take -o to set properties at creation).
	var recursive bool
	var props []string
	var args []string
	for i := 2; i < len(f); i++ {
		switch {
		case f[i] == "-r":
			recursive = true
		case f[i] == "-o" && f[1] != "get" && f[1] != "list":
			i++
			props = append(props, f[i])
		default:
			args = append(args, f[i])
		}
	}
	setProps := func(ds *fakeDS) {
		for _, p := range props {
			if v, ok := strings.CutPrefix(p, ownerProp+"="); ok {
				ds.owner = v
			}
		}
	}
	noDS := func(n string) (string, string, int) {
		return "", fmt.Sprintf("cannot open '%s': dataset does not exist\n", n), 1
	}
	switch {
	case strings.HasPrefix(cmd, "zfs get -Hp -o value guid,createtxg,referenced "):
		// zfs-get(8): -H drops headers, -p prints exact numbers, -o value
		// only the values, one line per property in the order asked.
		if h.datasets[last] == nil {
			return noDS(last)
		}
		return fmt.Sprintf("%d\n57\n2147483648\n", 1000+len(last)), "", 0
	case strings.HasPrefix(cmd, "zfs get -H -o value mountpoint "):
		return "/zroot/vm\n", "", 0
	case len(f) == 7 && f[1] == "get" && f[5] == ownerProp:
		// zfs get -H -o value lab:owner DS: an unset user property is "-".
		ds := h.datasets[last]
		if ds == nil {
			return noDS(last)
		}
		if ds.owner == "" {
			return "-\n", "", 0
		}
		return ds.owner + "\n", "", 0
	case f[1] == "set":
		// zfs set PROP=VALUE DS (zfs-set(8)).
		ds := h.datasets[last]
		if ds == nil {
			return noDS(last)
		}
		props = []string{f[2]}
		setProps(ds)
	case f[1] == "snapshot":
		// zfs-snapshot(8); -r takes every descendant's snapshot too.
		name, snap, _ := strings.Cut(last, "@")
		if h.datasets[name] == nil {
			return noDS(name)
		}
		h.datasets[last] = &fakeDS{}
		setProps(h.datasets[last])
		if recursive {
			for n := range h.datasets {
				if strings.HasPrefix(n, name+"/") && !strings.Contains(n, "@") {
					h.datasets[n+"@"+snap] = &fakeDS{}
					setProps(h.datasets[n+"@"+snap])
				}
			}
		}
	case f[1] == "clone":
		if h.datasets[args[0]] == nil {
			return noDS(args[0])
		}
		h.datasets[last] = &fakeDS{origin: args[0]}
		setProps(h.datasets[last])
	case f[1] == "list":
		// zfs-list(8) -H -o name[,PROP]: one dataset a line, fields
		// separated by a tab, "-" for an unset user property; -t picks
		// the types.
		snaps := strings.Contains(cmd, "snapshot")
		fsToo := strings.Contains(cmd, "filesystem")
		withOwner := strings.Contains(cmd, "name,"+ownerProp)
		var b strings.Builder
		for _, n := range sortedSet(h.datasets) {
			if n != last && !strings.HasPrefix(n, last+"/") && !strings.HasPrefix(n, last+"@") {
				continue
			}
			if strings.Contains(n, "@") && !snaps || !strings.Contains(n, "@") && !fsToo {
				continue
			}
			b.WriteString(n)
			if withOwner {
				v := h.datasets[n].owner
				if v == "" {
					v = "-"
				}
				b.WriteString("\t" + v)
			}
			b.WriteString("\n")
		}
		return b.String(), "", 0
	case f[1] == "destroy":
		// zfs-destroy(8): a snapshot with clones is refused
		// (cmd/zfs/zfs_main.c, destroy_check_dependent); -r destroys the
		// descendants' snapshots of the same name too, and of a
		// filesystem or volume "all children" (its descendants and their
		// snapshots).
		name, snap, isSnap := strings.Cut(last, "@")
		var victims []string
		for n := range h.datasets {
			d, s, ok := strings.Cut(n, "@")
			switch {
			case n == last:
				victims = append(victims, n)
			case isSnap && recursive && ok && s == snap && strings.HasPrefix(d, name+"/"):
				victims = append(victims, n)
			case !isSnap && recursive && (strings.HasPrefix(n, last+"/") || strings.HasPrefix(n, last+"@")):
				victims = append(victims, n)
			case !isSnap && !recursive && strings.HasPrefix(n, last+"@"):
				return "", "cannot destroy '" + last + "': filesystem has children\nuse '-r' to destroy the following datasets:\n" + n + "\n", 1
			}
		}
		for _, v := range victims {
			for n, ds := range h.datasets {
				if ds.origin == v {
					return "", "cannot destroy '" + v + "': snapshot has dependent clones\nuse '-R' to destroy the following datasets:\n" + n + "\n", 1
				}
			}
		}
		if len(victims) == 0 && isSnap {
			return "", "could not find any snapshots to destroy; check snapshot names.\n", 1
		}
		if len(victims) == 0 {
			return noDS(last)
		}
		for _, v := range victims {
			delete(h.datasets, v)
		}
	default:
		return "", "fakehost: unknown command " + cmd + "\n", 127
	}
	return "", "", 0
}

// splitWords undoes guest.ShellQuote: words separated by blanks, a word
// in single quotes taken whole, '\” an escaped quote.
func splitWords(cmd string) []string {
	var words []string
	var cur strings.Builder
	in, any := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			cur.WriteByte(c)
		case c == '\'':
			in, any = true, true
		case c == '\\' && i+1 < len(cmd):
			i++
			cur.WriteByte(cmd[i])
			any = true
		case c == ' ' || c == '\t':
			if any || cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteByte(c)
		}
	}
	if any || cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

// ifconfig answers ifconfig(8) (sbin/ifconfig).
func (h *fakeHost) ifconfig(f []string) (string, string, int) {
	if len(f) == 1 {
		return h.ifconfigList(), "", 0
	}
	if len(f) >= 3 && (f[1] == "bridge" || f[1] == "tap") && f[2] == "create" {
		// `ifconfig bridge|tap create [ARGS]`: main special-cases
		// "create", ifconfig() runs the clone callback first and applies
		// the remaining arguments to the new interface ("Push the clone
		// create callback so the new device is created and can be used for
		// any remaining arguments"), and printifnamemaybe, registered with
		// atexit, prints the new name — also when a later argument failed
		// (sbin/ifconfig/ifconfig.c).
		n := fmt.Sprintf("%s%d", f[1], h.nBridge)
		if f[1] == "bridge" {
			h.nBridge++
		} else {
			n = fmt.Sprintf("tap%d", h.nTap)
			h.nTap++
		}
		h.ifaces[n] = &fakeIface{mtu: 1500}
		out, errOut, code := h.ifconfigSet(n, f[3:])
		return n + "\n" + out, errOut, code
	}
	return h.ifconfigSet(f[1], f[2:])
}

// ifconfigSet applies ifconfig's parameters args to interface name.
func (h *fakeHost) ifconfigSet(name string, args []string) (string, string, int) {
	in := h.ifaces[name]
	if in == nil {
		return "", "ifconfig: interface " + name + " does not exist\n", 1
	}
	f := append([]string{"ifconfig", name}, args...)
	for i := 2; i < len(f); i++ {
		switch f[i] {
		case "description":
			i++
			in.desc = f[i]
		case "mtu":
			i++
			n, _ := strconv.Atoi(f[i])
			h.setMTU(name, n)
		case "up":
		case "addm":
			i++
			if e := h.addMember(name, f[i]); e != "" {
				return "", "ifconfig: BRDGADD " + f[i] + ": " + e + "\n", 1
			}
		case "deletem":
			i++
			h.removeMember(name, f[i])
		case "destroy":
			for _, m := range h.membersOf(name) {
				h.removeMember(name, m)
			}
			delete(h.ifaces, name)
		default:
			return "", "ifconfig: " + f[i] + ": bad value\n", 1
		}
	}
	return "", "", 0
}

// setMTU sets an interface's MTU; a bridge passes it on to its members
// (sys/net/if_bridge.c, bridge_ioctl SIOCSIFMTU).
func (h *fakeHost) setMTU(name string, mtu int) {
	in := h.ifaces[name]
	if in == nil {
		return
	}
	in.mtu = mtu
	for _, m := range h.membersOf(name) {
		h.ifaces[m].mtu = mtu
	}
}

// addMember is sys/net/if_bridge.c bridge_ioctl_add: a member of another
// bridge is refused (EBUSY); the first member defines the bridge's MTU,
// later ones are set to it.
func (h *fakeHost) addMember(bridge, member string) string {
	m := h.ifaces[member]
	if m == nil {
		return "No such file or directory"
	}
	if len(m.members) > 0 {
		return "Device busy"
	}
	b := h.ifaces[bridge]
	if len(h.membersOf(bridge)) == 0 {
		b.mtu = m.mtu
	} else {
		m.mtu = b.mtu
	}
	m.members = []string{bridge}
	return ""
}

func (h *fakeHost) removeMember(bridge, member string) {
	if m := h.ifaces[member]; m != nil && len(m.members) > 0 && m.members[0] == bridge {
		m.members = nil
	}
}

func (h *fakeHost) membersOf(bridge string) []string {
	var out []string
	for _, n := range sortedSet(h.ifaces) {
		if in := h.ifaces[n]; len(in.members) > 0 && in.members[0] == bridge {
			out = append(out, n)
		}
	}
	return out
}

// vmTaps makes and removes the taps vm-bhyve's background runs own:
// made (with the switch's MTU, a "vmnet/VM/0/SWITCH" description, on the
// switch's bridge) before run.lock, destroyed before it goes
// (lib/vm-switch-standard switch::standard::provision; lib/vm-run vm::run).
func (h *fakeHost) vmTaps() {
	now := time.Now()
	// vm::bhyve_device_networking (lib/vm-run): a tap per networkN of
	// the VM's configuration, added to networkN_switch's bridge.
	want := map[string]string{} // tap description prefix → switch
	for _, n := range sortedSet(h.vms) {
		if n == "gw" {
			continue
		}
		if _, locked, _ := h.phase(n, now); locked {
			if len(h.vms[n].nets) == 0 {
				want["vmnet/"+n+"/0/"] = h.switchOf(n)
			}
			for i, sw := range h.vms[n].nets {
				want[fmt.Sprintf("vmnet/%s/%d/", n, i)] = sw
			}
		}
	}
	for name, in := range h.ifaces {
		if strings.HasPrefix(in.desc, "vmnet/") {
			key := in.desc[:strings.LastIndex(in.desc, "/")+1]
			if want[key] == "" {
				h.removeMember(strings.Join(in.members, ""), name)
				delete(h.ifaces, name)
			} else {
				delete(want, key)
			}
		}
	}
	for _, key := range sortedSet(want) {
		sw := h.switches[want[key]]
		n := fmt.Sprintf("tap%d", h.nTap)
		h.nTap++
		tap := &fakeIface{mtu: 1500, desc: key + want[key], group: "vm-port"}
		h.ifaces[n] = tap
		if sw != nil && !sw.vale {
			br := h.ifaces["vm-"+want[key]]
			if br != nil && br.mtu != 1500 {
				tap.mtu = br.mtu
			}
			h.addMember("vm-"+want[key], n)
		}
	}
}

// switchOf is the switch a VM's network0 is on: what sysrc set (the test
// host keeps it in the log of the sysrc call; the provider always puts
// network0 on the pair's switch, the only lab switch at a time here).
func (h *fakeHost) switchOf(vm string) string {
	for _, n := range sortedSet(h.switches) {
		if n != "public" {
			return n
		}
	}
	return "public"
}

// ifconfigList prints every interface as ifconfig(8) does with no
// arguments: "NAME: flags=…<…> metric 0 mtu N" (ifconfig.c status()),
// then "\tdescription: …", "\toptions=…", a bridge's "\tmember: IF
// flags=143<LEARNING,DISCOVER,AUTOEDGE,AUTOPTP>" lines (ifbridge.c
// bridge_status()) and "\tgroups: …".
func (h *fakeHost) ifconfigList() string {
	h.vmTaps()
	var b strings.Builder
	for _, n := range sortedSet(h.ifaces) {
		in := h.ifaces[n]
		fmt.Fprintf(&b, "%s: flags=1008843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST,LOWER_UP> metric 0 mtu %d\n", n, in.mtu)
		if in.desc != "" {
			fmt.Fprintf(&b, "\tdescription: %s\n", in.desc)
		}
		b.WriteString("\toptions=80000<LINKSTATE>\n")
		for _, m := range h.membersOf(n) {
			fmt.Fprintf(&b, "\tmember: %s flags=143<LEARNING,DISCOVER,AUTOEDGE,AUTOPTP>\n", m)
		}
		if in.group != "" {
			fmt.Fprintf(&b, "\tgroups: %s\n", in.group)
		}
	}
	return b.String()
}

// left lists what of lab's remains on the host ("lab-" names, lab-made
// switches, interfaces described by lab).
func (h *fakeHost) left() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.vmTaps()
	var out []string
	for _, set := range []map[string]bool{keys(h.vms), keys(h.switches), keys(h.ifaces), keys(h.datasets), h.vmm} {
		for n := range set {
			if strings.Contains(n, "lab-") || strings.HasPrefix(n, "l") && len(n) == 9 {
				out = append(out, n)
			}
		}
	}
	for k, v := range h.sysConf {
		out = append(out, "system.conf "+k+"="+v)
	}
	for n, in := range h.ifaces {
		if strings.HasPrefix(in.desc, "lab-") || strings.HasPrefix(in.desc, "vmnet/lab-") {
			out = append(out, n+" ("+in.desc+")")
		}
	}
	sort.Strings(out)
	return out
}

// mtu is an interface's MTU (0: none).
func (h *fakeHost) mtu(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if in := h.ifaces[name]; in != nil {
		return in.mtu
	}
	return 0
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
