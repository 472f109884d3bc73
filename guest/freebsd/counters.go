package freebsd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Counters reads, in one command, the counters that explain a run on a
// FreeBSD end (guest.Counters): `netstat -s -p tcp`'s statistics, the
// NIC's lines of `vmstat -i` and the CPU clock.
var Counters = guest.Counters{Read: ReadCounters, Parse: ParseCounters}

// ReadCounters is the command. The NIC's interrupt sources are named by
// the device that allocated them: vmx(4) names its own ("irq264:
// vmx0:rxq0"), while vtnet(4)'s come from its virtio_pci parent
// ("irq259: virtio_pci1"), which `sysctl dev.vtnet.0.%parent` names; the
// lines of either are kept. vmstat -i leaves out sources that never fired
// (print_intrcnts in usr.bin/vmstat/vmstat.c prints a count only when it
// is not 0, without -a).
func ReadCounters(iface string) guest.Cmd {
	script := `IF=` + guest.ShellQuote(iface) + `
drv=${IF%%[0-9]*}; unit=${IF#"$drv"}
par=$(sysctl -n "dev.$drv.$unit.%parent" 2>/dev/null)
echo '#tcp'; netstat -s -p tcp
echo '#interrupts'; vmstat -i | awk -v a="$IF" -v b="$par" 'index($0, " " a ":") || index($0, " " a " ") || (b != "" && (index($0, " " b " ") || index($0, " " b ":")))'
echo '#freq'; sysctl -n dev.cpu.0.freq 2>/dev/null
true`
	return guest.Cmd{Argv: []string{"sh", "-c", script}, Name: "read counters of " + iface}
}

// netstatCounters are the lines of `netstat -s -p tcp` lab reads, by the
// format strings tcp_stats prints them with (usr.bin/netstat/inet.c):
// "{:sent-packets/%ju} {N:/packet%s sent}", "{:sent-retransmitted-packets/%ju}
// {N:/data packet%s} ({:sent-retransmitted-bytes/%ju} {N:/byte%s})
// {N:retransmitted}", "{:retransmit-timeouts/%ju} {N:/retransmit
// timeout%s}" and, in the sack container, "{:recovery-episodes/%ju}
// {N:/SACK recovery episode%s}" (%s: "s" unless the count is 1).
var netstatCounters = []struct {
	name string
	re   *regexp.Regexp
}{
	{guest.CounterOutSegments, regexp.MustCompile(`^\s*(\d+) packets? sent$`)},
	{guest.CounterRetransSegments, regexp.MustCompile(`^\s*(\d+) data packets? \(\d+ bytes?\) retransmitted$`)},
	{guest.CounterTimeouts, regexp.MustCompile(`^\s*(\d+) retransmit timeouts?$`)},
	{guest.CounterRecoveries, regexp.MustCompile(`^\s*(\d+) SACK recovery episodes?$`)},
}

// intrLine is a line of vmstat -i: the source's name (hw.intrnames: "irq264:
// vmx0:rxq0"), its total and its rate ("{d:name/%-*s}{ket:name/%s}
// {:total/%20lu} {:rate/%10lu}").
var intrLine = regexp.MustCompile(`^(.*\S)\s+(\d+)\s+(\d+)$`)

// ParseCounters reads ReadCounters' output.
func ParseCounters(out string) (guest.CounterSnapshot, error) {
	snap := guest.CounterSnapshot{TCP: map[string]int64{}, Facts: map[string]string{}}
	section := ""
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(line, "#"); ok && !strings.ContainsAny(name, " \t") {
			section = name
			continue
		}
		switch section {
		case "tcp":
			for _, c := range netstatCounters {
				if m := c.re.FindStringSubmatch(line); m != nil {
					v, _ := strconv.ParseInt(m[1], 10, 64)
					snap.TCP[c.name] = v
				}
			}
		case "interrupts":
			m := intrLine.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil {
				continue
			}
			v, _ := strconv.ParseInt(m[2], 10, 64)
			name := m[1]
			if _, src, ok := strings.Cut(name, ": "); ok && strings.HasPrefix(name, "irq") {
				name = strings.TrimSpace(src) // "vmx0:rxq0", without its irq number
			}
			if snap.Interrupts == nil {
				snap.Interrupts = map[string]int64{}
			}
			snap.Interrupts[name] += v
		case "freq":
			if f := strings.TrimSpace(line); f != "" {
				snap.Facts["cpu_mhz"] = f
			}
		}
	}
	if _, ok := snap.TCP[guest.CounterOutSegments]; !ok {
		return guest.CounterSnapshot{}, fmt.Errorf("no \"packets sent\" line in netstat -s -p tcp")
	}
	return snap, nil
}
