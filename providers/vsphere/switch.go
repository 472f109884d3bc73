package vsphere

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
)

// switchRef is one switch whose MTU lab may change: a standard vSwitch of
// a host, or a distributed switch.
type switchRef struct {
	host types.ManagedObjectReference // the vSwitch's host
	name string                       // the vSwitch's name
	dvs  types.ManagedObjectReference // a distributed switch (host unset)
}

func (s switchRef) isDVS() bool { return s.dvs.Value != "" }

// String names the switch in messages and in state ("host-21/vSwitch0",
// "VmwareDistributedVirtualSwitch:dvs-5").
func (s switchRef) String() string {
	if s.isDVS() {
		return s.dvs.Type + ":" + s.dvs.Value
	}
	return s.host.Value + "/" + s.name
}

// entity is the object that carries the switch's MTU record.
func (s switchRef) entity() types.ManagedObjectReference {
	if s.isDVS() {
		return s.dvs
	}
	return s.host
}

// key is the switch's entry in its entity's record.
func (s switchRef) key() string {
	if s.isDVS() {
		return "dvs"
	}
	return s.name
}

func joinSwitches(sws []switchRef) string {
	var s []string
	for _, sw := range sws {
		s = append(s, sw.String())
	}
	return strings.Join(s, ",")
}

func parseSwitches(s string) ([]switchRef, error) {
	var out []switchRef
	for _, f := range strings.Split(s, ",") {
		if f == "" {
			continue
		}
		if host, name, ok := strings.Cut(f, "/"); ok && host != "" && name != "" {
			out = append(out, switchRef{host: types.ManagedObjectReference{Type: "HostSystem", Value: host}, name: name})
			continue
		}
		if typ, v, ok := strings.Cut(f, ":"); ok && typ != "" && v != "" {
			out = append(out, switchRef{dvs: types.ManagedObjectReference{Type: typ, Value: v}})
			continue
		}
		return nil, fmt.Errorf("bad switch %q in state", f)
	}
	return out, nil
}

// mtuField is the custom attribute, on a host (for its vSwitches) or a
// distributed switch, that holds lab's MTU records (JSON, by switch key).
const mtuField = "lab-mtu"

// mtuRecord is what lab wrote on a switch it changed: the MTU it found
// (restored when the last holder lets go), the MTU it set, and the owner
// tags of the links holding it (machine.Owner.Tag(link address)). A
// record with a port group is a vSwitch lab made in own-switch mode (see
// ownLink), with that port group, for its one holder.
type mtuRecord struct {
	Prev int `json:"prev"`
	// PrevUnset: the switch reported no MTU (its default, Prev) when
	// found; the restore leaves it unset again.
	PrevUnset bool     `json:"prev_unset,omitempty"`
	MTU       int      `json:"mtu"`
	Holders   []string `json:"holders"`
	Portgroup string   `json:"portgroup,omitempty"`
}

// readRecords returns every record on an entity.
func readRecords(ctx context.Context, c *vim25.Client, e types.ManagedObjectReference) (map[string]mtuRecord, error) {
	v, ok, err := getField(ctx, object.NewCommon(c, e), mtuField)
	if err != nil {
		return nil, fmt.Errorf("read %s of %s: %w", mtuField, e.Value, err)
	}
	recs := map[string]mtuRecord{}
	if !ok || v == "" {
		return recs, nil
	}
	if err := json.Unmarshal([]byte(v), &recs); err != nil {
		return nil, fmt.Errorf("read %s of %s: %q: %w", mtuField, e.Value, v, err)
	}
	return recs, nil
}

func readRecord(ctx context.Context, c *vim25.Client, sw switchRef) (mtuRecord, error) {
	recs, err := readRecords(ctx, c, sw.entity())
	return recs[sw.key()], err
}

// writeRecord replaces (or, with no holders, removes) a switch's record
// in recs, the records its entity carried when read, and writes them.
func writeRecord(ctx context.Context, c *vim25.Client, sw switchRef, recs map[string]mtuRecord, rec mtuRecord) error {
	if len(rec.Holders) == 0 {
		delete(recs, sw.key())
	} else {
		recs[sw.key()] = rec
	}
	if err := writeRecords(ctx, c, sw.entity(), recs); err != nil {
		return fmt.Errorf("record the MTU of %s: %w", sw, err)
	}
	return nil
}

// writeRecords writes recs, every switch record of entity e, in one
// custom attribute change (own-switch batches record many links at once).
func writeRecords(ctx context.Context, c *vim25.Client, e types.ManagedObjectReference, recs map[string]mtuRecord) error {
	v := ""
	if len(recs) > 0 {
		b, err := json.Marshal(recs)
		if err != nil {
			return err
		}
		v = string(b)
	}
	if c.ServiceContent.CustomFieldsManager == nil {
		return errors.New("this endpoint has no custom attributes (a bare ESXi host?), so lab cannot record the MTU it would change; connect to vCenter, or leave link mtu unset")
	}
	return setField(ctx, object.NewCommon(c, e), mtuField, "", v)
}

// acquire makes sw run at mtu for holder: the first holder records the
// switch's MTU and sets the new one; later ones join when the MTU is the
// same and are refused when it differs (one switch, one MTU).
func acquire(ctx context.Context, c *vim25.Client, sw switchRef, mtu int, holder string) error {
	cur, unset, err := foundMTU(ctx, c, sw)
	if err != nil {
		return err
	}
	recs, err := readRecords(ctx, c, sw.entity())
	if err != nil {
		return err
	}
	rec := recs[sw.key()]
	others := slices.DeleteFunc(slices.Clone(rec.Holders), func(h string) bool { return h == holder })
	switch {
	case len(others) > 0 && rec.MTU != mtu:
		return fmt.Errorf("%s runs at MTU %d for %s; this link wants %d (one switch has one MTU: give the pairs the same link mtu, or another network)",
			sw, rec.MTU, strings.Join(others, ", "), mtu)
	case len(rec.Holders) == 0 && cur == mtu:
		return nil // nothing to change, nothing to restore
	case len(rec.Holders) == 0:
		rec = mtuRecord{Prev: cur, PrevUnset: unset, MTU: mtu}
	}
	if !contains(rec.Holders, holder) {
		rec.Holders = append(rec.Holders, holder)
	}
	// The record is written before the switch changes: whatever happens
	// next, an orphan sweep finds what to restore.
	if err := writeRecord(ctx, c, sw, recs, rec); err != nil {
		return err
	}
	if cur != mtu {
		return setSwitchMTU(ctx, c, sw, mtu)
	}
	return nil
}

// release lets go of sw for holder; the last holder restores the MTU the
// first one found.
func release(ctx context.Context, c *vim25.Client, sw switchRef, holder string) error {
	recs, err := readRecords(ctx, c, sw.entity())
	if err != nil {
		return err
	}
	rec := recs[sw.key()]
	if !contains(rec.Holders, holder) {
		return nil
	}
	rec.Holders = slices.DeleteFunc(rec.Holders, func(h string) bool { return h == holder })
	if len(rec.Holders) == 0 {
		cur, unset, err := foundMTU(ctx, c, sw)
		if err != nil {
			return err
		}
		switch {
		case rec.PrevUnset && !sw.isDVS() && !unset:
			// Exactly as found: the vSwitch's spec without an MTU (a
			// distributed switch's reconfigure cannot unset MaxMtu; it
			// gets Prev, the default it ran at).
			if err := setVSwitchMTU(ctx, c, sw, 0); err != nil {
				return fmt.Errorf("restore: %w", err)
			}
		case cur != rec.Prev && !(rec.PrevUnset && !sw.isDVS()):
			if err := setSwitchMTU(ctx, c, sw, rec.Prev); err != nil {
				return fmt.Errorf("restore: %w", err)
			}
		}
	}
	return writeRecord(ctx, c, sw, recs, rec)
}

// foundMTU reads a switch's MTU as switchMTU does, and whether the switch
// reports none (unset: it runs at the default).
func foundMTU(ctx context.Context, c *vim25.Client, sw switchRef) (mtu int, unset bool, err error) {
	if sw.isDVS() {
		var d mo.DistributedVirtualSwitch
		if err := object.NewCommon(c, sw.dvs).Properties(ctx, sw.dvs, []string{"config"}, &d); err != nil {
			return 0, false, fmt.Errorf("read switch %s: %w", sw.dvs.Value, err)
		}
		if v, ok := d.Config.(*types.VMwareDVSConfigInfo); ok && v.MaxMtu > 0 {
			return int(v.MaxMtu), false, nil
		}
		return defaultMTU, true, nil
	}
	_, v, err := hostVSwitch(ctx, c, sw, "")
	if err != nil {
		return 0, false, err
	}
	if v.Mtu == 0 {
		return defaultMTU, true, nil
	}
	return int(v.Mtu), false, nil
}

// setVSwitchMTU replaces a standard vSwitch's spec with one whose MTU is
// mtu (0: none, the default), keeping the rest of the spec.
func setVSwitchMTU(ctx context.Context, c *vim25.Client, sw switchRef, mtu int) error {
	ns, v, err := hostVSwitch(ctx, c, sw, "")
	if err == nil {
		spec := v.Spec
		spec.Mtu = int32(mtu)
		err = ns.UpdateVirtualSwitch(ctx, sw.name, spec)
	}
	if err != nil {
		return fmt.Errorf("set MTU %d on %s: %w", mtu, sw, err)
	}
	return nil
}

// switchMTU reads a switch's MTU; a vSwitch may be named by a port group
// it carries instead (portgroup, when sw has no name).
func switchMTU(ctx context.Context, c *vim25.Client, sw switchRef, portgroup string) (int, error) {
	mtu, _, err := readSwitchMTU(ctx, c, sw, portgroup)
	return mtu, err
}

// readSwitchMTU is switchMTU, also saying whether a standard vSwitch has
// no MTU set (HostVirtualSwitch.mtu absent, read as 0). The vSphere API
// reference marks HostVirtualSwitchSpec.mtu optional and names no default
// (vim.host.VirtualSwitch.Specification; govmomi's types.HostVirtualSwitchSpec
// "Mtu int32 `xml:\"mtu,omitempty\"`"); such a switch runs at the
// standard vSwitch's default MTU, 1500 bytes (defaultMTU; C. Wahl and
// S. Pantol, Networking for VMware Administrators, ch. 8 "vSwitch
// Properties": "By default, this is 1,500 bytes").
func readSwitchMTU(ctx context.Context, c *vim25.Client, sw switchRef, portgroup string) (mtu int, unset bool, err error) {
	if sw.isDVS() {
		mtu, _, err := dvsMTU(ctx, c, sw.dvs)
		return mtu, false, err
	}
	_, v, err := hostVSwitch(ctx, c, sw, portgroup)
	if err != nil {
		return 0, false, err
	}
	if v.Mtu == 0 {
		return defaultMTU, true, nil
	}
	return int(v.Mtu), false, nil
}

func hostVSwitch(ctx context.Context, c *vim25.Client, sw switchRef, portgroup string) (*object.HostNetworkSystem, *types.HostVirtualSwitch, error) {
	if sw.name == "" {
		return vswitchOf(ctx, c, sw.host, portgroup)
	}
	ns, info, err := hostNetwork(ctx, c, sw.host)
	if err != nil {
		return nil, nil, err
	}
	for i := range info.Vswitch {
		if info.Vswitch[i].Name == sw.name {
			return ns, &info.Vswitch[i], nil
		}
	}
	return nil, nil, fmt.Errorf("host %s has no vSwitch %s", sw.host.Value, sw.name)
}

// setSwitchMTU sets a switch's MTU and reads it back: a switch that
// accepts the change and keeps its old MTU is an error, not a success.
func setSwitchMTU(ctx context.Context, c *vim25.Client, sw switchRef, mtu int) error {
	if sw.isDVS() {
		_, version, err := dvsMTU(ctx, c, sw.dvs)
		if err == nil {
			err = setDVSMTU(ctx, c, sw.dvs, version, mtu)
		}
		if err != nil {
			return fmt.Errorf("set MaxMtu %d on %s: %w", mtu, sw, err)
		}
	} else if err := setVSwitchMTU(ctx, c, sw, mtu); err != nil {
		return err
	}
	got, err := switchMTU(ctx, c, sw, "")
	if err != nil {
		return fmt.Errorf("read back the MTU of %s: %w", sw, err)
	}
	if got != mtu {
		return fmt.Errorf("set MTU %d on %s: vSphere accepted the change but the switch reports %d", mtu, sw, got)
	}
	return nil
}

func dvsMTU(ctx context.Context, c *vim25.Client, dref types.ManagedObjectReference) (mtu int, version string, err error) {
	var d mo.DistributedVirtualSwitch
	if err := object.NewCommon(c, dref).Properties(ctx, dref, []string{"config"}, &d); err != nil {
		return 0, "", fmt.Errorf("read switch %s: %w", dref.Value, err)
	}
	mtu = defaultMTU
	if d.Config == nil {
		return mtu, "", nil
	}
	info := d.Config.GetDVSConfigInfo()
	if v, ok := d.Config.(*types.VMwareDVSConfigInfo); ok && v.MaxMtu > 0 {
		mtu = int(v.MaxMtu)
	}
	return mtu, info.ConfigVersion, nil
}

func setDVSMTU(ctx context.Context, c *vim25.Client, dref types.ManagedObjectReference, version string, mtu int) error {
	dvs := object.NewDistributedVirtualSwitch(c, dref)
	spec := &types.VMwareDVSConfigSpec{DVSConfigSpec: types.DVSConfigSpec{ConfigVersion: version}, MaxMtu: int32(mtu)}
	return wait(ctx, func() (*object.Task, error) { return dvs.Reconfigure(ctx, spec) })
}

// deleteLegacyLink restores the MTUs a link made by an earlier lab version
// changed (it recorded "prev_mtu" in state and nothing on the switch).
func deleteLegacyLink(ctx context.Context, c *vim25.Client, in machine.Instance) error {
	var errs []string
	for _, kv := range strings.Split(in.Attrs["prev_mtu"], ",") {
		id, v, ok := strings.Cut(kv, "=")
		mtu, err := strconv.Atoi(v)
		if !ok || err != nil {
			errs = append(errs, fmt.Sprintf("bad prev_mtu entry %q", kv))
			continue
		}
		sw := switchRef{host: types.ManagedObjectReference{Type: "HostSystem", Value: id}}
		if in.Attrs["switch"] == "dvs" {
			typ := in.Attrs["dvs_type"]
			if typ == "" {
				typ = "VmwareDistributedVirtualSwitch"
			}
			sw = switchRef{dvs: types.ManagedObjectReference{Type: typ, Value: id}}
		} else if _, v, err := vswitchOf(ctx, c, sw.host, in.Attrs["network"]); err == nil {
			sw.name = v.Name
		}
		cur, err := switchMTU(ctx, c, sw, in.Attrs["network"])
		if isNotFound(err) {
			continue
		}
		if err == nil && cur != mtu {
			err = setSwitchMTU(ctx, c, sw, mtu)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("restore MTU %d on %s: %v", mtu, sw, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("delete link %s: %s", in.Address, strings.Join(errs, "; "))
	}
	return nil
}
