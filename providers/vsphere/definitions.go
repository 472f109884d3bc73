package vsphere

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// Definitions lab made. The custom attribute definitions lab adds when
// they are missing (ownerField, mtuField, custom_attribute) are listed,
// as lab adds them, in the value of madeField on the root folder; one the
// user made first is never listed. Once no object carries a value of a
// listed definition any more (the last destroy), lab removes it — and
// madeField itself when the list is empty — so nothing lab made stays
// behind. Switch locks (lock.go) are removed as they are released.

// madeField is the global custom attribute listing (JSON) the definitions
// lab made.
const madeField = "lab-made"

// noteMade adds name to the definitions lab made, under the root
// folder's lock.
func noteMade(ctx context.Context, c *vim25.Client, name string) error {
	if name == madeField {
		return nil
	}
	unlock, err := vcLock(ctx, c, c.ServiceContent.RootFolder)
	if err != nil {
		return err
	}
	defer unlock()
	m := object.NewCustomFieldsManager(c)
	key, made, err := readMade(ctx, c, m, true)
	if err != nil || slices.Contains(made, name) {
		return err
	}
	return writeMade(ctx, c, m, key, append(made, name))
}

// readMade returns madeField's key and the names it lists; key is -1 when
// madeField does not exist (and create is not set).
func readMade(ctx context.Context, c *vim25.Client, m *object.CustomFieldsManager, create bool) (int32, []string, error) {
	key, err := m.FindKey(ctx, madeField)
	if errors.Is(err, object.ErrKeyNameNotFound) {
		if !create {
			return -1, nil, nil
		}
		def, aerr := m.Add(ctx, madeField, "", nil, nil)
		if aerr != nil {
			return -1, nil, fmt.Errorf("custom attribute %q: %w", madeField, aerr)
		}
		return def.Key, nil, nil
	}
	if err != nil {
		return -1, nil, fmt.Errorf("custom attribute %q: %w", madeField, err)
	}
	v, _, err := getFieldKey(ctx, object.NewCommon(c, c.ServiceContent.RootFolder), key)
	if err != nil {
		return key, nil, fmt.Errorf("read %s: %w", madeField, err)
	}
	var made []string
	if v != "" {
		if err := json.Unmarshal([]byte(v), &made); err != nil {
			return key, nil, fmt.Errorf("read %s: %q: %w", madeField, v, err)
		}
	}
	return key, made, nil
}

func writeMade(ctx context.Context, c *vim25.Client, m *object.CustomFieldsManager, key int32, made []string) error {
	b, err := json.Marshal(made)
	if err != nil {
		return err
	}
	if err := m.Set(ctx, c.ServiceContent.RootFolder, key, string(b)); err != nil {
		return fmt.Errorf("write %s: %w", madeField, err)
	}
	return nil
}

// dropDefinitions is dropUnusedDefinitions for a link's delete: the
// deletes of many links at once share runs (a run that starts after a
// delete asked sees what that delete removed), instead of each taking the
// vCenter-wide definitions lock in turn.
func (p *Provider) dropDefinitions(ctx context.Context, c *vim25.Client) error {
	op := &netOp{}
	p.batches.do(ctx, "definitions", op, func(ctx context.Context, ops []*netOp) {
		failOps(ops, dropUnusedDefinitions(ctx, c))
	})
	return op.err
}

// dropUnusedDefinitions removes each definition lab made that no object
// carries a value of any more, and madeField once it lists none. A lab
// process that looked a definition up just before it went retries its
// write with a new one (setField).
func dropUnusedDefinitions(ctx context.Context, c *vim25.Client) error {
	if c.ServiceContent.CustomFieldsManager == nil {
		return nil
	}
	m := object.NewCustomFieldsManager(c)
	if key, _, err := readMade(ctx, c, m, false); err != nil || key < 0 {
		return err
	}
	unlock, err := vcLock(ctx, c, c.ServiceContent.RootFolder)
	if err != nil {
		return err
	}
	defer unlock()
	key, made, err := readMade(ctx, c, m, false)
	if err != nil || key < 0 {
		return err
	}
	used, err := usedFieldKeys(ctx, c)
	if err != nil {
		return err
	}
	defs, err := m.Field(ctx)
	if err != nil {
		return fmt.Errorf("list custom attributes: %w", err)
	}
	var keep []string
	for _, name := range made {
		i := slices.IndexFunc(defs, func(d types.CustomFieldDef) bool { return d.Name == name })
		switch {
		case i < 0: // removed by hand
		case used[defs[i].Key]:
			keep = append(keep, name)
		default:
			if err := m.Remove(ctx, defs[i].Key); err != nil && !isNotFound(err) {
				return fmt.Errorf("remove custom attribute %q: %w", name, err)
			}
			fieldKeys.Delete(fieldKeyID{c, name})
		}
	}
	if len(keep) > 0 {
		return writeMade(ctx, c, m, key, keep)
	}
	if err := m.Remove(ctx, key); err != nil && !isNotFound(err) {
		return fmt.Errorf("remove custom attribute %q: %w", madeField, err)
	}
	return nil
}

// usedFieldKeys are the custom attribute keys some entity carries a
// non-empty value of.
func usedFieldKeys(ctx context.Context, c *vim25.Client) (map[int32]bool, error) {
	v, err := view.NewManager(c).CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{"ManagedEntity"}, true)
	if err != nil {
		return nil, fmt.Errorf("list custom attribute values: %w", err)
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }() // a view left behind ends with the session
	var ents []mo.ManagedEntity
	if err := v.Retrieve(ctx, []string{"ManagedEntity"}, []string{"customValue"}, &ents); err != nil {
		return nil, fmt.Errorf("list custom attribute values: %w", err)
	}
	used := map[int32]bool{}
	for _, e := range ents {
		for _, cv := range e.CustomValue {
			if s, ok := cv.(*types.CustomFieldStringValue); ok && s.Value != "" {
				used[s.Key] = true
			}
		}
	}
	return used, nil
}
