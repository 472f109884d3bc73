package bhyve

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/providertest"
)

// TestConformanceForeignObject runs the suite's ownership case in both
// modes against the fake host: a VM an administrator made by hand under
// the name lab gives the pair's server.
func TestConformanceForeignObject(t *testing.T) {
	for _, tc := range []struct{ backend, source string }{{"vm-bhyve", "fbsd14-tmpl"}, {"bhyve", "fbsd14-zvol"}} {
		t.Run(tc.backend, func(t *testing.T) {
			h := newFakeHost()
			srv := newServer(t, h)
			providertest.ForeignObject(t, providertest.Harness{
				Type:     TypeName,
				Provider: fmt.Sprintf("  host = %q\n  port = %d\n  host_key = %q\n  backend = %q", srv.Host(), srv.Port(), srv.HostKey(), tc.backend),
				Template: fmt.Sprintf("  source = %q\n  os = \"freebsd\"\n  ssh { user = \"root\" }", tc.source),
				Pair:     "  vcpu = 1\n  memory = \"1GiB\"",
				LabID:    "cf",
				Setup: func(t *testing.T, pr providers.Provider) {
					p := pr.(*Provider)
					p.signer, p.poll = srv.ClientSigner(), 0
					p.dial = func(_ context.Context, name string, _ ssh.Config) (guest.Transport, error) {
						return nopTransport{name}, nil
					}
				},
				Foreign: func(t *testing.T, g *plan.Group) (string, func() string) {
					return g.Server.Address, h.handMadeVM(vmName(g.Server.Name), tc.backend == "vm-bhyve")
				},
			})
		})
	}
}

// handMadeVM makes, with vmBhyve, what `vm create -t default -s 20G NAME`
// leaves on a vm-bhyve host (lib/vm-core core::create: zfs::make_dataset
// of $VM_DS_ZFS_DATASET/NAME, then the disk, a zvol NAME/disk0 with
// vm_dir's default disk_dev "sparse-zvol"): datasets with no lab:owner and
// the VM's vm-bhyve entry; without, the disk a raw-bhyve administrator
// makes by hand, `zfs create -V 20G zroot/vm/NAME` (zfs-create(8)), with
// no lab:owner. It returns what describes the VM now: the entry and every
// dataset at or below NAME with its properties ("" when none is left).
func (h *fakeHost) handMadeVM(vm string, vmBhyve bool) func() string {
	h.mu.Lock()
	h.datasets["zroot/vm/"+vm] = &fakeDS{}
	if vmBhyve {
		h.vms[vm] = &fakeVM{loader: "bhyveload", cpu: "2", mem: "2048M"}
		h.datasets["zroot/vm/"+vm+"/disk0"] = &fakeDS{}
	}
	h.mu.Unlock()
	return func() string {
		h.mu.Lock()
		defer h.mu.Unlock()
		var out []string
		if v := h.vms[vm]; v != nil {
			out = append(out, fmt.Sprintf("vm %s loader=%s cpu=%s memory=%s started=%v", vm, v.loader, v.cpu, v.mem, !v.started.IsZero()))
		}
		for n, ds := range h.datasets {
			if n == "zroot/vm/"+vm || strings.HasPrefix(n, "zroot/vm/"+vm+"/") || strings.HasPrefix(n, "zroot/vm/"+vm+"@") {
				out = append(out, fmt.Sprintf("dataset %s origin=%q lab:owner=%q", n, ds.origin, ds.owner))
			}
		}
		sort.Strings(out)
		return strings.Join(out, "; ")
	}
}
