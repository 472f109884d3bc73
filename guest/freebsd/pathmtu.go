package freebsd

import (
	"strconv"

	"github.com/lab-bench/lab/guest"
)

// PathProbe pings addr three times with size bytes of payload and the
// don't-fragment bit set. FreeBSD ping(8) (sbin/ping/ping.8 in
// freebsd-src): `-D` sets the Don't Fragment bit; `-s` is the number of
// data bytes (8 bytes of ICMP header and 20 of IP more go on the wire);
// `-t 3` makes ping exit after three seconds whatever it received. It
// exits 0 when at least one response was heard and 2 when none was (EXIT
// STATUS), so one lost packet does not fail the probe.
func PathProbe(addr string, size int) guest.Cmd {
	return guest.Cmd{Argv: []string{"ping", "-n", "-q", "-D", "-s", strconv.Itoa(size), "-c", "3", "-t", "3", addr}}
}
