package engine

import (
	"context"
	"fmt"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
)

// Headers an IPv4 echo request adds to its payload: 20 bytes of IP and 8
// of ICMP. A probe of MTU − 28 bytes fills a frame of the MTU.
const echoHeaders = 28

// checkPath proves, before the first run of each MTU, that the network
// between a cross pair's ends carries a packet of the smaller of the two
// MTUs the ends report, unfragmented: the ends meet on a network lab does
// not own (a switch, a cable, another host's bridge), whose MTU no
// setting of lab's can show. The client probes the server with its OS's
// PathProbe; an OS without one is not probed. Pairs of one provider need
// no probe: their link is lab's, made in the MTU the spec asks.
func (e *Engine) checkPath(ctx context.Context, g *plan.Group, server, client end, obsS, obsC guest.Observed) error {
	if !g.Cross() {
		return nil
	}
	addr := server.ep().Addr
	mtu := min(obsS.MTU, obsC.MTU)
	probe := guest.For(client.osName).NICs.PathProbe
	if mtu <= echoHeaders || probe == nil {
		return nil
	}
	key := fmt.Sprintf("%s\x00%d", g.Address, mtu)
	e.mu.Lock()
	done := e.pathsChecked[key]
	e.mu.Unlock()
	if done {
		return nil
	}
	cmd := probe(addr, mtu-echoHeaders)
	if _, err := client.t.Run(ctx, cmd); err != nil {
		return fmt.Errorf("path MTU: %s cannot reach %s (%s) with %d-byte packets that must not be fragmented: %w. "+
			"Both ends are set to MTU %d (server %d, client %d), so something between them — a switch, a bridge, a NIC — carries less, or the address is not reachable from %s: "+
			"lower mtu in the guests' settings, or raise it on every device between the two machines",
			client.in.Address, server.in.Address, addr, mtu, err, mtu, obsS.MTU, obsC.MTU, client.in.Address)
	}
	e.mu.Lock()
	if e.pathsChecked == nil {
		e.pathsChecked = map[string]bool{}
	}
	e.pathsChecked[key] = true
	e.mu.Unlock()
	e.emit(Event{Type: EvPathChecked, Address: g.Address, Message: fmt.Sprintf("the path from %s to %s carries MTU %d unfragmented (%s)",
		client.in.Address, server.in.Address, mtu, guest.ShellJoin(cmd.Argv))})
	return nil
}
