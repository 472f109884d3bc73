package libvirt

import (
	"encoding/binary"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/providertest"
)

// TestConformanceForeignObject runs the suite's ownership case against a
// scripted libvirtd: a network an administrator defined and started by
// hand (`virsh net-define` + `net-start`: no <metadata>, so no lab tag)
// under the name lab gives the pair's link.
func TestConformanceForeignObject(t *testing.T) {
	nets := &handNetworks{xml: map[string]string{}}
	d := &poolDaemon{state: uint32(golibvirt.StoragePoolRunning), calls: make(chan uint32, 64), more: nets.answer}
	providertest.ForeignObject(t, providertest.Harness{
		Type:     TypeName,
		Provider: "  pool = \"lab\"\n  accel = \"tcg\"\n  call_timeout = \"5s\"",
		Template: "  source = \"base.qcow2\"\n  os = \"linux\"\n  ssh { user = \"root\" }",
		Pair:     "  vcpu = 1\n  memory = \"1GiB\"",
		LabID:    "cf",
		Setup: func(t *testing.T, pr providers.Provider) {
			pr.(*Provider).dial = func(u *url.URL, timeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
				return dialLibvirt(d, u, timeout)
			}
		},
		Foreign: func(t *testing.T, g *plan.Group) (string, func() string) {
			name := networkName(g.Link.Name)
			nets.define(name, "<network><name>"+name+"</name><bridge name='virbr7'/><ip address='192.168.170.1' netmask='255.255.255.0'/></network>")
			return g.Link.Address, func() string { return nets.get(name) }
		},
	})
	close(d.calls)
	for proc := range d.calls {
		t.Errorf("the daemon was asked for procedure %d, which it does not answer", proc)
	}
}

// handNetworks are the networks of the scripted libvirtd, by name, with
// their XML; it answers the network procedures of remote_protocol.x:
// REMOTE_PROC_NETWORK_LOOKUP_BY_NAME (46), _GET_XML_DESC (43), _DESTROY
// (42) and _UNDEFINE (49) (a persistent network, as net-define makes: both
// remove it here), and REMOTE_PROC_CONNECT_LIST_ALL_DOMAINS (273: none)
// and _LIST_ALL_NETWORKS (283).
type handNetworks struct {
	mu  sync.Mutex
	xml map[string]string
}

func (n *handNetworks) define(name, xml string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.xml[name] = xml
}

func (n *handNetworks) get(name string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.xml[name]
}

// answer is poolDaemon.more. A network's arguments open with its name
// (remote_nonnull_network: name, uuid[16]; LOOKUP_BY_NAME: the name).
func (n *handNetworks) answer(proc uint32, args []byte) (uint32, []byte, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	name := xdrStringAt(args)
	switch proc {
	case 273: // remote_nonnull_domain domains<>, unsigned int ret
		return 0, xdrWords(0, 0), true
	case 283:
		out := xdrWords(uint32(len(n.xml)))
		for nm := range n.xml {
			out = append(append(out, xdrString(nm)...), make([]byte, 16)...)
		}
		return 0, append(out, xdrWords(uint32(len(n.xml)))...), true
	case 46, 43, 42, 49:
		x, ok := n.xml[name]
		if !ok { // network_conf.c, VIR_ERR_NO_NETWORK
			return 1, xdrError(uint32(golibvirt.ErrNoNetwork), fmt.Sprintf("Network not found: no network with matching name '%s'", name)), true
		}
		switch proc {
		case 46:
			return 0, append(xdrString(name), make([]byte, 16)...), true
		case 43:
			return 0, xdrString(x), true
		default:
			delete(n.xml, name)
			return 0, nil, true
		}
	}
	return 0, nil, false
}

// xdrStringAt reads the XDR string that opens b ("" when b holds none).
func xdrStringAt(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	n := int(binary.BigEndian.Uint32(b))
	if n > len(b)-4 {
		return ""
	}
	return string(b[4 : 4+n])
}
