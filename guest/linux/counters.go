package linux

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Counters reads, in one command, the counters that explain a run on a
// Linux end (guest.Counters): the network namespace's TCP MIB, the NIC's
// interrupt lines and their CPU affinity, the qdisc, interrupt coalescing,
// channels and the CPU frequency governor. Every source is optional but
// the MIB: a veth has no interrupts and no coalescing, a guest without
// cpufreq has no governor.
var Counters = guest.Counters{Read: ReadCounters, Parse: ParseCounters}

// ReadCounters is the command: sections headed "#name", each a file or a
// tool's output as is. The NIC's interrupt lines are those of
// /proc/interrupts whose last field (the action's name) is the interface
// or its device (the basename of /sys/class/net/IF/device: "virtio0" for
// virtio-net, whose queues are "virtio0-input.0"…; vmxnet3 names its
// vectors "eth0-rxtx-0"), or begins with one of them and "-".
func ReadCounters(iface string) guest.Cmd {
	// Each program the script starts is a process on the end, tens of
	// milliseconds on a loaded host, and a run reads this twice per end:
	// what the shell can do itself (read a line, strip a path) it does,
	// and only cat, readlink, awk, tc and ethtool run.
	script := `IF=` + guest.ShellQuote(iface) + `
echo '#snmp'; cat /proc/net/snmp /proc/net/netstat 2>/dev/null
dev=$(readlink "/sys/class/net/$IF/device" 2>/dev/null); dev=${dev##*/}
irqs=$(awk -v a="$IF" -v b="$dev" 'NR == 1 { next } { n = $NF } n == a || index(n, a "-") == 1 || (b != "" && b != "." && (n == b || index(n, b "-") == 1))' /proc/interrupts 2>/dev/null)
echo '#interrupts'; { IFS= read -r l && printf '%s\n' "$l"; } 2>/dev/null </proc/interrupts; [ -n "$irqs" ] && printf '%s\n' "$irqs"
echo '#affinity'; [ -n "$irqs" ] && printf '%s\n' "$irqs" | while read -r n rest; do n=${n%:}; [ -n "$n" ] && printf '%s %s\n' "$n" "$(cat "/proc/irq/$n/smp_affinity_list" 2>/dev/null)"; done
echo '#qdisc'; tc qdisc show dev "$IF" 2>/dev/null
echo '#coalesce'; ethtool -c "$IF" 2>/dev/null
echo '#channels'; ethtool -l "$IF" 2>/dev/null
echo '#governor'; { IFS= read -r g && printf '%s\n' "$g"; } 2>/dev/null </sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
true`
	return guest.Cmd{Argv: []string{"sh", "-c", script}, Name: "read counters of " + iface}
}

// tcpCounters map lab's counter names to the MIB fields they sum, as
// /proc/net/snmp ("Tcp:") and /proc/net/netstat ("TcpExt:") print them
// (linux net/ipv4/proc.c: snmp4_tcp_list, snmp4_net_list).
var tcpCounters = map[string][]string{
	guest.CounterOutSegments:     {"Tcp.OutSegs"},
	guest.CounterRetransSegments: {"Tcp.RetransSegs"},
	guest.CounterTimeouts:        {"TcpExt.TCPTimeouts"},
	guest.CounterRecoveries:      {"TcpExt.TCPSackRecovery", "TcpExt.TCPRenoRecovery"},
}

// ParseCounters reads ReadCounters' output.
func ParseCounters(out string) (guest.CounterSnapshot, error) {
	sections := map[string][]string{}
	var cur string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "#"); ok && !strings.ContainsAny(name, " \t") {
			cur = name
			continue
		}
		sections[cur] = append(sections[cur], line)
	}
	mib := mibValues(append(sections["snmp"], sections["netstat"]...))
	if _, ok := mib["Tcp.OutSegs"]; !ok {
		return guest.CounterSnapshot{}, fmt.Errorf("no Tcp: OutSegs in /proc/net/snmp")
	}
	snap := guest.CounterSnapshot{TCP: map[string]int64{}, Facts: map[string]string{}}
	for name, fields := range tcpCounters {
		for _, f := range fields {
			if v, ok := mib[f]; ok {
				snap.TCP[name] += v
			}
		}
	}
	irqNames := interrupts(sections["interrupts"], &snap)
	for _, l := range sections["affinity"] {
		if n, cpus, ok := strings.Cut(strings.TrimSpace(l), " "); ok && irqNames[n] != "" {
			snap.Facts["irq."+irqNames[n]+".cpus"] = cpus
		}
	}
	var qdiscs []string
	for _, l := range sections["qdisc"] {
		if q, ok := strings.CutPrefix(strings.TrimSpace(l), "qdisc "); ok {
			qdiscs = append(qdiscs, q)
		}
	}
	if len(qdiscs) > 0 {
		snap.Facts["qdisc"] = strings.Join(qdiscs, "; ")
	}
	keyValues(sections["coalesce"], "coalesce.", snap.Facts)
	channels(sections["channels"], snap.Facts)
	if len(sections["governor"]) > 0 && strings.TrimSpace(sections["governor"][0]) != "" {
		snap.Facts["cpu_governor"] = strings.TrimSpace(sections["governor"][0])
	}
	return snap, nil
}

// mibValues reads /proc/net/snmp-style pairs of lines — "Tcp: Name1
// Name2 …" then "Tcp: v1 v2 …" — into "Tcp.Name1" → v1 (counters are
// unsigned; RtoMax's -1 and the like parse as signed).
func mibValues(lines []string) map[string]int64 {
	out := map[string]int64{}
	for i := 0; i+1 < len(lines); i++ {
		hp, hrest, ok1 := strings.Cut(lines[i], ":")
		vp, vrest, ok2 := strings.Cut(lines[i+1], ":")
		if !ok1 || !ok2 || hp != vp {
			continue
		}
		names, values := strings.Fields(hrest), strings.Fields(vrest)
		if len(names) != len(values) || len(names) == 0 {
			continue
		}
		if _, err := strconv.ParseInt(values[0], 10, 64); err != nil {
			continue // two header lines in a row
		}
		for j, n := range names {
			if v, err := strconv.ParseInt(values[j], 10, 64); err == nil {
				out[hp+"."+n] = v
			}
		}
		i++
	}
	return out
}

// interrupts reads /proc/interrupts' header ("CPU0 CPU1 …") and the NIC's
// lines (" 24:  123  456  PCI-MSI 49152-edge  virtio0-input.0"): each
// line's per-CPU counts summed, by its last field. It returns the IRQ
// numbers' names.
func interrupts(lines []string, snap *guest.CounterSnapshot) map[string]string {
	names := map[string]string{}
	if len(lines) == 0 {
		return names
	}
	ncpu := len(strings.Fields(lines[0]))
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) < ncpu+2 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		var sum int64
		for _, c := range f[1 : 1+ncpu] {
			v, err := strconv.ParseInt(c, 10, 64)
			if err != nil {
				return names
			}
			sum += v
		}
		name := f[len(f)-1]
		if snap.Interrupts == nil {
			snap.Interrupts = map[string]int64{}
		}
		snap.Interrupts[name] += sum
		names[strings.TrimSuffix(f[0], ":")] = name
	}
	return names
}

// keyValues reads ethtool's "key: value" lines (ethtool -c: "rx-usecs:
// 3", "Adaptive RX: off  TX: off") into facts under prefix, leaving out
// the header and values the driver does not support ("n/a").
func keyValues(lines []string, prefix string, facts map[string]string) {
	for _, l := range lines {
		// "Adaptive RX: off  TX: n/a" (and "CQE mode RX: …  TX: …") hold
		// two: ethtool's coalescing dump prints the RX and TX halves on
		// one line.
		if rx, tx, ok := strings.Cut(l, "  TX:"); ok {
			if name, _, ok := strings.Cut(rx, " RX:"); ok {
				keyValues([]string{rx, name + " TX:" + tx}, prefix, facts)
				continue
			}
		}
		k, v, ok := strings.Cut(l, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" || v == "n/a" || strings.Contains(k, " for ") {
			continue
		}
		facts[prefix+strings.ToLower(strings.ReplaceAll(k, " ", "-"))] = v
	}
}

// channels reads `ethtool -l`: "Pre-set maximums:" then "Current hardware
// settings:", each with "RX:", "TX:", "Other:", "Combined:" lines; facts
// get the current ones ("channels.combined") and the maximums
// ("channels.combined-max"), leaving out "n/a".
func channels(lines []string, facts map[string]string) {
	suffix := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Pre-set maximums"):
			suffix = "-max"
			continue
		case strings.HasPrefix(t, "Current hardware settings"):
			suffix = ""
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		v = strings.TrimSpace(v)
		if !ok || v == "" || v == "n/a" || strings.Contains(k, " for ") {
			continue
		}
		facts["channels."+strings.ToLower(strings.TrimSpace(k))+suffix] = v
	}
}
