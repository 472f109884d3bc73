package guest

import "fmt"

// AdviseLoss warns when packet loss is emulated on either end while the
// sending end still segments in hardware or software (TSO/GSO on): the loss
// rule then drops whole 64 KB super-packets, so "1 %" is not 1 % of
// wire-sized packets. The result records the offload state either way; the
// warning makes sure nobody reads the loss figure without knowing.
//
// A UDP benchmark (udp) gets no such warning: TSO segments TCP only, and a
// UDP socket's datagrams go through GSO only when the application asks
// with the UDP_SEGMENT socket option (udp(7), Linux 4.18), which iperf3
// does only under --gsro ("Enable GSO/GRO which is disabled by default",
// esnet/iperf src/iperf_api.c, 3.21) and lab never passes; iperf 2 and
// netperf do not set it. Each datagram is a wire-sized packet already.
func AdviseLoss(receiver, sender Settings, senderObs Observed, udp bool) []string {
	lossy := func(s Settings) bool { return s.Loss != nil && s.Loss.Percent > 0 }
	if udp || !lossy(receiver) && !lossy(sender) {
		return nil
	}
	var out []string
	for _, f := range []string{"tso", "gso"} {
		if state, ok := senderObs.Offloads[f]; ok && firstWord(state) == "on" {
			out = append(out, fmt.Sprintf("loss is emulated while the sender has %s on: drops hit segmentation super-packets, not wire-sized packets (set %s = false on the sender for loss experiments)", f, f))
		}
	}
	return out
}
