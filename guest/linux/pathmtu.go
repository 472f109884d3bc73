package linux

import (
	"strconv"

	"github.com/lab-bench/lab/guest"
)

// PathProbe pings addr three times with size bytes of payload and the
// don't-fragment bit set. iputils ping(8): `-M do` prohibits
// fragmentation, even local ("ping: local error: message too long,
// mtu=N" when the interface's MTU is smaller); `-s` is the payload (the
// packet is 8 bytes of ICMP and 20 of IP header more); `-W 2` waits two
// seconds for each reply; `-i 0.2` is the shortest interval an
// unprivileged user may ask. It exits 0 when any reply came and 1 when
// none did (EXIT STATUS), so one lost packet does not fail the probe.
func PathProbe(addr string, size int) guest.Cmd {
	return guest.Cmd{Argv: []string{"ping", "-n", "-q", "-M", "do", "-s", strconv.Itoa(size), "-c", "3", "-i", "0.2", "-W", "2", addr}}
}
