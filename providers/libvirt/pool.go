package libvirt

import (
	"errors"
	"fmt"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/guest"
)

// The storage pool. Examples name pool "default", which a fresh libvirtd
// does not have (virt-install and virt-manager create it on first use;
// libvirtd alone never does). lab does not create pools: a pool it made
// would be empty (the template's base volume has to be put there by the
// user anyway), and a pool is host-wide state others put images into —
// removing it at destroy could take their volumes with it. Instead the
// first look at the pool (the plan's, with cpu_pin {}; every apply's,
// before the first network or domain is made) fails at once when it is
// missing or not running, or holds no template volume, naming the pool
// and the virsh commands that make it right.

// poolConn is what checkPool needs of a libvirt connection.
type poolConn interface {
	StoragePoolLookupByName(name string) (golibvirt.StoragePool, error)
	StoragePoolGetInfo(pool golibvirt.StoragePool) (state uint8, capacity, allocation, available uint64, err error)
	StorageVolLookupByName(pool golibvirt.StoragePool, name string) (golibvirt.StorageVol, error)
}

// checkPool fails when the daemon at uri has no running pool named pool
// or, with source set, no volume source in it; the error says how to
// make them.
func checkPool(l poolConn, uri, pool, source string) error {
	pl, err := l.StoragePoolLookupByName(pool)
	if err != nil {
		return poolError(uri, pool, err)
	}
	state, _, _, _, err := l.StoragePoolGetInfo(pl)
	if err != nil {
		return callErr("StoragePoolGetInfo", pool, err)
	}
	if golibvirt.StoragePoolState(state) != golibvirt.StoragePoolRunning {
		return fmt.Errorf("storage pool %q at %s is defined but not running (%s): start it with `%s` (and `%s` to start it with libvirtd)",
			pool, uri, poolStateName(state), virshCmd(uri, "pool-start", pool), virshCmd(uri, "pool-autostart", pool))
	}
	if source == "" {
		return nil
	}
	if _, err := l.StorageVolLookupByName(pl, source); err != nil {
		if !isNotFound(err) {
			return callErr("StorageVolLookupByName", source, err)
		}
		return fmt.Errorf("storage pool %q at %s holds no volume %q (the template's source): copy the image into the pool's directory and run `%s`, or upload it with `%s`",
			pool, uri, source, virshCmd(uri, "pool-refresh", pool), virshCmd(uri, "vol-create-as", pool, source, "SIZE", "--format", "qcow2")+" && "+virshCmd(uri, "vol-upload", "--pool", pool, source, "FILE"))
	}
	return nil
}

// poolError is what a failed look-up of pool says: for a pool the daemon
// does not have (VIR_ERR_NO_STORAGE_POOL), the commands that define,
// build and start it as a directory pool.
func poolError(uri, pool string, err error) error {
	var le golibvirt.Error
	if !errors.As(err, &le) || golibvirt.ErrorNumber(le.Code) != golibvirt.ErrNoStoragePool {
		return callErr("StoragePoolLookupByName", pool, err)
	}
	dir := "/var/lib/libvirt/images" // where virt-install and virt-manager put pool "default"
	if pool != DefaultPool {
		dir = "/var/lib/libvirt/pool-" + pool
	}
	return fmt.Errorf("storage pool %q does not exist at %s (a fresh libvirtd has none; lab does not create pools): create it as a directory pool with `%s && %s && %s && %s`, then put the template's volume into %s and run `%s`, or name an existing pool with pool = \"…\" (`%s` lists them)",
		pool, uri, virshCmd(uri, "pool-define-as", pool, "dir", "--target", dir), virshCmd(uri, "pool-build", pool),
		virshCmd(uri, "pool-start", pool), virshCmd(uri, "pool-autostart", pool), dir, virshCmd(uri, "pool-refresh", pool),
		virshCmd(uri, "pool-list", "--all"))
}

// virshCmd is the virsh command line that runs args against uri.
func virshCmd(uri string, args ...string) string {
	return guest.ShellJoin(append([]string{"virsh", "-c", uri}, args...))
}

// poolStateName names a virStoragePoolState (libvirt-storage.h).
func poolStateName(state uint8) string {
	names := []string{"inactive", "building", "running", "degraded", "inaccessible"}
	if int(state) < len(names) {
		return names[state]
	}
	return fmt.Sprintf("state %d", state)
}
