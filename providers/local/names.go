package local

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/machine"
)

// NamespacePrefix is what every namespace this provider makes starts with.
const NamespacePrefix = "lab-"

// Namespace is the network namespace name of a machine.
func Namespace(machineName string) string { return NamespacePrefix + machineName }

// vethNames are the two host-side names of a link's veth pair. Interface
// names are at most 15 bytes, so they are derived from a hash of the
// owner (lab and workspace) and the link address; the alias carries the
// readable identity (machine.Owner.Tag).
func vethNames(o machine.Owner, address string) (server, client string) {
	if o.Workspace == "" {
		// A link recorded by lab 0.1, whose names hashed the lab id alone.
		h := sha256.Sum256([]byte(o.Lab + "\x00" + address))
		x := hex.EncodeToString(h[:])[:10]
		return "lb" + x + "s", "lb" + x + "c"
	}
	x := o.Hash(10, address)
	return "lb" + x + "s", "lb" + x + "c"
}

// linkAddrs gives the /30 addresses of link number index inside
// 198.18.0.0/15 (RFC 2544's benchmarking range). Every pair lives in its own
// namespaces, so the plan only has to keep addresses unique within a lab.
func linkAddrs(index int) (server, client string) {
	n := (index % (1 << 15)) * 4 // 32768 /30s in a /15
	base := 198<<24 | 18<<16 | n
	ip := func(v int) string {
		return fmt.Sprintf("%d.%d.%d.%d", v>>24&255, v>>16&255, v>>8&255, v&255)
	}
	return ip(base + 1), ip(base + 2)
}

// cpuSets splits the machine's CPUs between the two ends of a pair: vcpu
// CPUs each, the server from the bottom, the client from the top, wrapping
// (and so sharing) when the machine has fewer than 2×vcpu.
func cpuSets(vcpu, ncpu int) (server, client []int) {
	if vcpu <= 0 || ncpu <= 0 {
		return nil, nil
	}
	if vcpu > ncpu {
		vcpu = ncpu
	}
	for i := 0; i < vcpu; i++ {
		server = append(server, i%ncpu)
		client = append(client, (ncpu-1-i+ncpu)%ncpu)
	}
	return server, client
}

// parseCPUList parses "0-3,5" or "0,1".
func parseCPUList(s string) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

func runtimeNumCPU() int { return runtime.NumCPU() }
