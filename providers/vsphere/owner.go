package vsphere

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Ownership. Every VM carries its owner's tag (machine.Owner.Tag) as the
// first line of its annotation, and every lab folder carries it in the
// custom attribute ownerField. Nothing is deleted — not at Delete, not as a
// leftover before a clone, not by an orphan sweep — unless its tag names
// this exact lab and workspace. A VM without a tag is refused by name.

// ownerField is the custom attribute (on folders) holding the owner tag.
const ownerField = "lab-owner"

// legacyLab is the annotation line lab 0.1 wrote ("lab-id: <lab>"); it
// names no workspace and is accepted only for a state of that version.
const (
	legacyLab     = "lab-id: "
	legacyAddress = "lab-address: "
)

// annotationFooter ends every annotation lab writes.
const annotationFooter = "Made by lab (github.com/lab-bench/lab); `lab destroy` removes it."

// annotation is what a VM made for o at address carries.
// An owner without a workspace (a state of lab 0.1, still being applied)
// gets that version's lines.
func annotation(o machine.Owner, address string) string {
	if o.Workspace == "" {
		return legacyLab + o.Lab + "\n" + legacyAddress + address + "\n" + annotationFooter
	}
	return o.Tag(address) + "\n" + annotationFooter
}

// annotationTag returns the owner tag line of an annotation ("" if none)
// and, for an annotation of lab 0.1, the lab id it names.
func annotationTag(s string) (tag, legacy string) {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if _, _, ok := machine.ParseTag(l); ok && tag == "" {
			tag = l
		} else if v, ok := strings.CutPrefix(l, legacyLab); ok {
			legacy = v
		}
	}
	return tag, legacy
}

// FolderName is the VM folder holding the machines of o: one per lab and
// workspace ("lab-<lab>-<workspace>"; "lab-<lab>" for a state of lab 0.1).
func FolderName(o machine.Owner) string {
	if o.Workspace == "" {
		return "lab-" + o.Lab
	}
	return "lab-" + o.Lab + "-" + o.Workspace
}

// ownerOf is whose an instance is: the engine's record, or for an entry
// written before owners were recorded, the lab id in its attributes.
func ownerOf(in machine.Instance) machine.Owner {
	if in.Owner.Lab != "" {
		return in.Owner
	}
	return machine.Owner{Lab: in.Attrs["lab_id"]}
}

// ownerOption is the VMX option (extraConfig) that carries the owner tag
// too (in the guestinfo namespace, which every ESXi keeps in the VMX; the
// guest may read it, and it holds nothing secret): the clone spec sets it and the annotation, so a VM is tagged from
// the moment it exists, even when a create is interrupted before the
// reconfigure (the simulator copies only extraConfig from a clone spec).
const ownerOption = "guestinfo.lab.owner"

// vmTag returns the owner tag a VM carries: its annotation's tag line, or
// when the annotation has none, the ownerOption value.
func vmTag(o mo.VirtualMachine) (ann string) {
	if o.Config == nil {
		return ""
	}
	if tag, _ := annotationTag(o.Config.Annotation); tag != "" {
		return o.Config.Annotation
	}
	for _, opt := range o.Config.ExtraConfig {
		if v := opt.GetOptionValue(); v.Key == ownerOption {
			if s, ok := v.Value.(string); ok && s != "" {
				return s
			}
		}
	}
	return o.Config.Annotation
}

// ownsVM checks a VM's tag (see vmTag) against o: the exact owner tag, or
// for an owner without a workspace (a state of lab 0.1) the exact legacy
// lab id.
//
// An owner whose workspace is AnyWorkspace owns nothing: "*" is for
// reporting other workspaces' objects, never for touching them.
func ownsVM(o machine.Owner, name, ref, ann string) error {
	tag, legacy := annotationTag(ann)
	if o.Lab != "" && o.Workspace != machine.AnyWorkspace && (o.Owns(tag) || o.Workspace == "" && tag == "" && legacy == o.Lab) {
		return nil
	}
	if tag == "" && legacy != "" {
		tag = legacyLab + legacy
	}
	return &providers.NotOwnedError{Kind: "VM", Name: name + " (" + ref + ")", Tag: tag, Owner: o}
}

// fieldKeys caches custom attribute keys by session (a vCenter never
// changes a field's key; a field deleted by hand makes the next Set fail
// with a message naming it). It saves a round trip per record read and
// write, which links make under one lock.
var fieldKeys sync.Map // fieldKeyID → int32

type fieldKeyID struct {
	c    *vim25.Client
	name string
}

func cachedKey(c *vim25.Client, name string) (int32, bool) {
	v, ok := fieldKeys.Load(fieldKeyID{c, name})
	if !ok {
		return 0, false
	}
	return v.(int32), true
}

// fieldKey returns the key of a custom attribute, adding it when missing;
// ok is false when the endpoint has no custom attributes (a bare ESXi).
func fieldKey(ctx context.Context, c *object.Common, name, moType string) (key int32, ok bool, err error) {
	if c.Client().ServiceContent.CustomFieldsManager == nil {
		return 0, false, nil
	}
	if key, ok := cachedKey(c.Client(), name); ok {
		return key, true, nil
	}
	m := object.NewCustomFieldsManager(c.Client())
	if key, err = m.FindKey(ctx, name); err == nil {
		fieldKeys.Store(fieldKeyID{c.Client(), name}, key)
		return key, true, nil
	} else if !errors.Is(err, object.ErrKeyNameNotFound) {
		return 0, false, fmt.Errorf("custom attribute %q: %w", name, err)
	}
	def, aerr := m.Add(ctx, name, moType, nil, nil)
	if aerr == nil {
		fieldKeys.Store(fieldKeyID{c.Client(), name}, def.Key)
		// Listed as lab's, so the last destroy removes it (definitions.go).
		if err := noteMade(ctx, c.Client(), name); err != nil {
			return 0, false, fmt.Errorf("custom attribute %q: %w", name, err)
		}
		return def.Key, true, nil
	}
	// Another create may have added it meanwhile.
	if key, err = m.FindKey(ctx, name); err != nil {
		return 0, false, fmt.Errorf("custom attribute %q: %w", name, aerr)
	}
	return key, true, nil
}

// setField writes a custom attribute's value on an entity. A key that
// no longer exists (another lab process's last destroy removed the
// definition after this one looked it up) is looked up, or added, again.
func setField(ctx context.Context, c object.Common, name, moType, value string) error {
	for try := 1; ; try++ {
		key, ok, err := fieldKey(ctx, &c, name, moType)
		if err != nil || !ok {
			return err
		}
		err = object.NewCustomFieldsManager(c.Client()).Set(ctx, c.Reference(), key, value)
		if err == nil || try == 2 || !fault.Is(err, &types.InvalidArgument{}) && !isNotFound(err) {
			return err
		}
		fieldKeys.Delete(fieldKeyID{c.Client(), name})
	}
}

// getField reads a custom attribute's value on an entity ("" when unset);
// ok is false when the endpoint has no custom attributes.
func getField(ctx context.Context, c object.Common, name string) (value string, ok bool, err error) {
	if c.Client().ServiceContent.CustomFieldsManager == nil {
		return "", false, nil
	}
	key, cached := cachedKey(c.Client(), name)
	if !cached {
		key, err = object.NewCustomFieldsManager(c.Client()).FindKey(ctx, name)
		if err == nil {
			fieldKeys.Store(fieldKeyID{c.Client(), name}, key)
		}
	}
	if errors.Is(err, object.ErrKeyNameNotFound) {
		return "", true, nil // no such attribute: nothing carries it
	}
	if err != nil {
		return "", true, err
	}
	v, _, err := getFieldKey(ctx, c, key)
	return v, true, err
}

// getFieldKey reads the value of the custom attribute key on an entity
// ("" when unset).
func getFieldKey(ctx context.Context, c object.Common, key int32) (string, bool, error) {
	var e mo.ManagedEntity
	if err := c.Properties(ctx, c.Reference(), []string{"customValue"}, &e); err != nil {
		return "", false, err
	}
	return fieldValue(e.CustomValue, key), true, nil
}

// fieldValue is the value of the custom attribute key among values.
func fieldValue(values []types.BaseCustomFieldValue, key int32) string {
	for _, v := range values {
		if s, ok := v.(*types.CustomFieldStringValue); ok && s.Key == key {
			return s.Value
		}
	}
	return ""
}
