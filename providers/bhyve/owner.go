package bhyve

import (
	"context"
	"strings"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Ownership. Every object lab makes on the host carries its owner's tag,
// machine.Owner.Tag(address) ("lab/1 lab=… ws=… addr=…"):
//
//   - a VALE switch as the key lab_owner_NAME in vm-bhyve's
//     VM_DIR/.config/system.conf (sysrc(8));
//   - interfaces (a vm-bhyve switch's bridge, a raw-mode bridge or tap)
//     as their description, `ifconfig IF description TAG` (ifconfig(8));
//   - ZFS datasets and snapshots (a VM's clone, the template snapshot it
//     came from) as the user property lab:owner, set when they are made
//     (`zfs snapshot -o`, `zfs clone -o`) or right after `vm clone`
//     (`zfs set`); zfsprops(7), "User Properties".
//
// Delete removes nothing whose tag names another lab or workspace, or
// that carries no tag, and says which object it left alone; List returns
// what carries the owner's exact tag. The one exception closes the window
// between a create and its tag where vm-bhyve gives no way to create with
// the tag: `vm switch create` (the bridge is described afterwards) and
// `vm clone` (its dataset is tagged afterwards). Delete of a pending
// record (machine.Instance.Pending: its create never reported success)
// also removes a switch or clone of exactly the record's name that carries
// no tag at all (docs/PROVIDERS.md, "Pending records"). Everything else is
// created with its tag: datasets with `zfs snapshot -o`/`zfs clone -o`,
// raw-mode bridges and taps with `ifconfig bridge|tap create description
// TAG …` (one ifconfig process that creates the interface and applies the
// rest of its arguments to it, sbin/ifconfig/ifconfig.c: "Push the clone
// create callback so the new device is created and can be used for any
// remaining arguments") — their kernel-chosen names could never be matched
// by a record — and a VALE switch's record is written before the switch. A VALE switch has no interface:
// vm-bhyve keeps it as keys of its system.conf, and lab keeps the tag
// beside them as lab_owner_NAME (vmbhyve.go, valeTag).
// Records of a lab without a workspace (lab 0.1) name objects that carry
// no tag; those are matched by the exact name the state recorded.

// ownerProp is the ZFS user property holding the tag.
const ownerProp = "lab:owner"

// owned checks that an object with tag belongs to o (see above); a
// refusal is a *providers.NotOwnedError, which the engine knows
// (errors.Is providers.ErrNotOwned) and records nothing for.
func owned(o machine.Owner, kind, name, tag string) error {
	if o.Workspace == "" && (!strings.HasPrefix(tag, "lab/") || strings.HasPrefix(tag, machine.Owner{Lab: o.Lab}.Tag(""))) {
		return nil
	}
	if o.Owns(tag) {
		return nil
	}
	return &providers.NotOwnedError{Kind: kind, Name: name, Tag: tag, Owner: o}
}

// zfsValue is a property value as zfs get/list -H print it: "-" is unset.
func zfsValue(v string) string {
	v = strings.TrimSpace(v)
	if v == "-" {
		return ""
	}
	return v
}

// datasetTag reads a dataset's lab:owner (`zfs get -H -o value`);
// exists is false when there is no such dataset.
func (p *Provider) datasetTag(ctx context.Context, ds string) (tag string, exists bool, err error) {
	out, err := p.run(ctx, "zfs", "get", "-H", "-o", "value", ownerProp, ds)
	if err != nil && strings.Contains(err.Error(), "dataset does not exist") {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return zfsValue(out), true, nil
}

// taggedDatasets lists the datasets under the datastore of the given
// types (zfs list -t) with their lab:owner, one "NAME\tVALUE" line each
// (`zfs list -H -o name,lab:owner`, zfs-list(8): -H separates fields by a
// tab; an unset user property prints "-").
func (p *Provider) taggedDatasets(ctx context.Context, types string) (map[string]string, error) {
	out, err := p.run(ctx, "zfs", "list", "-H", "-o", "name,"+ownerProp, "-t", types, "-r", p.cfg.Datastore)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		name, val, ok := strings.Cut(line, "\t")
		if ok && name != "" {
			m[name] = zfsValue(val)
		}
	}
	return m, nil
}

// checkMachine refuses a machine whose dataset exists and is not o's (or,
// for a pending record, untagged: claim). exists reports whether the
// dataset exists.
func (p *Provider) checkMachine(ctx context.Context, vm string, o machine.Owner, pending bool) (exists bool, err error) {
	ds := p.cfg.Datastore + "/" + vm
	tag, exists, err := p.datasetTag(ctx, ds)
	if err != nil || !exists {
		return exists, err
	}
	return true, claim(o, pending, "ZFS dataset", ds, tag)
}

// claim checks that lab may delete an object with tag for o: it is o's
// (owned), or pending is set (o's record was written before the create
// and never confirmed) and the object carries no tag at all.
func claim(o machine.Owner, pending bool, kind, name, tag string) error {
	if pending && tag == "" {
		return nil
	}
	return owned(o, kind, name, tag)
}

// destroySnapshots removes o's snapshots named after vm on the
// datastore's direct children (the templates): the ones a clone of vm
// came from. `zfs destroy -r` takes the template's child datasets'
// snapshots of that name with it. A snapshot of that name with another
// tag, or none, is refused.
func (p *Provider) destroySnapshots(ctx context.Context, vm string, o machine.Owner) error {
	snaps, err := p.taggedDatasets(ctx, "snapshot")
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(snaps) {
		ds, snap, ok := strings.Cut(name, "@")
		child, under := strings.CutPrefix(ds, p.cfg.Datastore+"/")
		if !ok || snap != vm || !under || strings.Contains(child, "/") {
			continue
		}
		if err := owned(o, "ZFS snapshot", name, snaps[name]); err != nil {
			return err
		}
		if _, err := p.run(ctx, "zfs", "destroy", "-r", name); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
