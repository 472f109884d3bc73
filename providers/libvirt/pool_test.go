package libvirt

import (
	"context"
	"errors"
	"strings"
	"testing"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/providers"
)

// fakePools answers the storage calls of checkPool as libvirtd does for
// the pools and volumes it holds. The errors are libvirt's: the storage
// driver reports VIR_ERR_NO_STORAGE_POOL "no storage pool with matching
// name '%s'" and VIR_ERR_NO_STORAGE_VOL "no storage vol with matching
// name '%s'" (src/storage/storage_driver.c), which virerror.c prefixes
// with "Storage pool not found: " / "Storage volume not found: ".
type fakePools struct {
	state map[string]golibvirt.StoragePoolState // pool name → state
	vols  map[string]bool                       // "pool/volume"
}

func (f fakePools) StoragePoolLookupByName(name string) (golibvirt.StoragePool, error) {
	if _, ok := f.state[name]; !ok {
		return golibvirt.StoragePool{}, golibvirt.Error{Code: uint32(golibvirt.ErrNoStoragePool), Message: "Storage pool not found: no storage pool with matching name '" + name + "'"}
	}
	return golibvirt.StoragePool{Name: name}, nil
}

func (f fakePools) StoragePoolGetInfo(pool golibvirt.StoragePool) (uint8, uint64, uint64, uint64, error) {
	return uint8(f.state[pool.Name]), 1 << 30, 0, 1 << 30, nil
}

func (f fakePools) StorageVolLookupByName(pool golibvirt.StoragePool, name string) (golibvirt.StorageVol, error) {
	if !f.vols[pool.Name+"/"+name] {
		return golibvirt.StorageVol{}, golibvirt.Error{Code: uint32(golibvirt.ErrNoStorageVol), Message: "Storage volume not found: no storage vol with matching name '" + name + "'"}
	}
	return golibvirt.StorageVol{Pool: pool.Name, Name: name}, nil
}

// TestCheckPool: a missing pool fails naming it and the exact virsh
// commands that define, build and start it; a stopped one names
// pool-start; a pool without the template's volume names it and how to
// put it there; a running pool with the volume passes.
func TestCheckPool(t *testing.T) {
	const uri = "qemu:///system"
	f := fakePools{
		state: map[string]golibvirt.StoragePoolState{"lab": golibvirt.StoragePoolRunning, "stopped": golibvirt.StoragePoolInactive},
		vols:  map[string]bool{"lab/base.qcow2": true},
	}
	for _, tc := range []struct {
		name, pool, source string
		want               []string // nil: no error
	}{
		{"running, volume there", "lab", "base.qcow2", nil},
		{"running, no source asked", "lab", "", nil},
		{"fresh libvirtd: no pool default", "default", "base.qcow2", []string{
			`storage pool "default" does not exist at qemu:///system`,
			"virsh -c qemu:///system pool-define-as default dir --target /var/lib/libvirt/images && virsh -c qemu:///system pool-build default && virsh -c qemu:///system pool-start default && virsh -c qemu:///system pool-autostart default",
			"virsh -c qemu:///system pool-refresh default", "virsh -c qemu:///system pool-list --all"}},
		{"another missing pool", "my pool", "", []string{`storage pool "my pool"`, "pool-define-as 'my pool' dir --target '/var/lib/libvirt/pool-my pool'"}},
		{"stopped", "stopped", "base.qcow2", []string{`"stopped" at qemu:///system is defined but not running (inactive)`, "virsh -c qemu:///system pool-start stopped", "pool-autostart stopped"}},
		{"no template volume", "lab", "debian.qcow2", []string{`holds no volume "debian.qcow2"`, "virsh -c qemu:///system pool-refresh lab", "vol-upload --pool lab debian.qcow2 FILE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPool(f, uri, tc.pool, tc.source)
			if tc.want == nil {
				if err != nil {
					t.Errorf("checkPool: %v", err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("checkPool: %v\nwant it to say %q", err, w)
				}
			}
		})
	}
	// Another failure is passed on, naming the call.
	if err := poolError(uri, "lab", errors.New("boom")); err == nil || !strings.Contains(err.Error(), "StoragePoolLookupByName lab: boom") {
		t.Errorf("poolError: %v", err)
	}
}

// A Link against no daemon fails as before, without a pool error (the
// pool is looked at only through a connection).
func TestLinkOfflineNoPoolCheck(t *testing.T) {
	p := New()
	p.dial = offlineDial
	_, err := p.Link(context.Background(), providers.LinkSpec{Address: "pair.p.link", LabID: "x", Name: "x-p"})
	if err == nil || strings.Contains(err.Error(), "storage pool") {
		t.Errorf("Link offline: %v", err)
	}
}
