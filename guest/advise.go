package guest

import "fmt"

// AdviseLoss warns when packet loss is emulated on either end while the
// sending end still segments in hardware or software (TSO/GSO on): the loss
// rule then drops whole 64 KB super-packets, so "1 %" is not 1 % of
// wire-sized packets. The result records the offload state either way; the
// warning makes sure nobody reads the loss figure without knowing.
func AdviseLoss(receiver, sender Settings, senderObs Observed) []string {
	lossy := func(s Settings) bool { return s.Loss != nil && s.Loss.Percent > 0 }
	if !lossy(receiver) && !lossy(sender) {
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
