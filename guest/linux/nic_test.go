package linux

import "testing"

func TestIfaceByMAC(t *testing.T) {
	// Lines as iproute2 6.1 prints them (`ip -o link show` on Debian 12).
	out := "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
		"2: ens192: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether 00:50:56:a1:00:01 brd ff:ff:ff:ff:ff:ff\n" +
		"3: lvb0@if7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000\\    link/ether 00:50:56:A1:00:02 brd ff:ff:ff:ff:ff:ff link-netns x\n"
	tests := []struct{ mac, want string }{
		{"00:50:56:a1:00:01", "ens192"},
		{"00:50:56:a1:00:02", "lvb0"},
		{"00:50:56:a1:00:03", ""},
		{"ff:ff:ff:ff:ff:ff", ""}, // brd, not an address
	}
	for _, tc := range tests {
		if got := IfaceByMAC(out, tc.mac); got != tc.want {
			t.Errorf("IfaceByMAC(%s) = %q, want %q", tc.mac, got, tc.want)
		}
	}
}
