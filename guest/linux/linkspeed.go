package linux

import (
	"strconv"
	"strings"
)

// parseLinkSpeed is the link speed `ethtool IFACE` reports, as Observed
// records it: "1000Mb/s", or "unknown" when the driver reports none, or ""
// when the output has no Speed line (ethtool failed or the driver has no
// link settings).
//
// ethtool prints the speed once, tab-indented, in both its netlink and its
// ioctl paths (ethtool 6.1, netlink/settings.c linkmodes_reply_cb and
// ethtool.c dump_link_usettings):
//
//	if (val == 0 || val == (uint16_t)(-1) || val == (uint32_t)(-1))
//		printf("\tSpeed: Unknown!\n");
//	else
//		printf("\tSpeed: %uMb/s\n", val);
//
// The kernel's side: virtio_net reports SPEED_UNKNOWN unless the device
// offers VIRTIO_NET_F_SPEED_DUPLEX with a speed (QEMU's "speed" property,
// SPEED_UNKNOWN by default); vmxnet3 reports the speed the device returns
// for VMXNET3_CMD_GET_LINK (adapter->link_speed = ret >> 16), which QEMU's
// device fixes at VMXNET3_LINK_SPEED (1000 << 16, hw/net/vmxnet3.c); veth
// reports SPEED_10000 (drivers/net/veth.c veth_get_link_ksettings).
func parseLinkSpeed(out string) string {
	for _, line := range strings.Split(out, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "Speed:")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if n, ok := strings.CutSuffix(v, "Mb/s"); ok {
			if _, err := strconv.ParseUint(n, 10, 32); err == nil {
				return v
			}
		}
		return "unknown"
	}
	return ""
}
