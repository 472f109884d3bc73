package vsphere

import (
	"context"
	"fmt"
	"net/url"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vapi/rest"
	"github.com/vmware/govmomi/vapi/tags"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
)

// vSphere tags (tag_category). Besides the annotation, which stays the
// proof of ownership, every VM gets the tag "lab=<lab> ws=<workspace>"
// in the category tag_category, for administrators to search, filter and
// grant by. lab creates the category (cardinality MULTIPLE, for VMs) and
// the tag when missing; the tag's description is the owner tag
// (machine.Owner.Tag("tag")). A tag is deleted when nothing carries it
// any more and its description is this owner's exact tag; a tag of that
// name made by hand is used, never deleted.

// tagName is o's tag in the category.
func tagName(o machine.Owner) string { return "lab=" + o.Lab + " ws=" + o.Workspace }

// tagManager returns the tagging API's session, logging in on first use
// with the provider's credentials (the tagging API is REST, with sessions
// of its own).
func (p *Provider) tagManager(ctx context.Context) (*tags.Manager, error) {
	if p.tags != nil {
		return p.tags, nil
	}
	c, _, err := p.session(ctx)
	if err != nil {
		return nil, err
	}
	rc := rest.NewClient(c.Client)
	if err := rc.Login(ctx, url.UserPassword(p.username, p.password)); err != nil {
		return nil, fmt.Errorf("log in to the tagging API: %w", err)
	}
	p.rest, p.tags = rc, tags.NewManager(rc)
	return p.tags, nil
}

// tagVM attaches o's tag to a VM, making the category and tag first when
// they are missing.
func (p *Provider) tagVM(ctx context.Context, o machine.Owner, vm types.ManagedObjectReference) error {
	p.tagMu.Lock()
	defer p.tagMu.Unlock()
	m, err := p.tagManager(ctx)
	if err != nil {
		return err
	}
	cat, err := p.category(ctx, m, true)
	if err != nil {
		return err
	}
	t, err := findTag(ctx, m, cat, tagName(o))
	if err != nil {
		return err
	}
	id := ""
	if t != nil {
		id = t.ID
	} else if id, err = m.CreateTag(ctx, &tags.Tag{Name: tagName(o), Description: o.Tag("tag"), CategoryID: cat}); err != nil {
		return fmt.Errorf("create tag %q in %s: %w", tagName(o), p.cfg.TagCategory, err)
	}
	if err := m.AttachTag(ctx, id, vm); err != nil {
		return fmt.Errorf("attach tag %q: %w", tagName(o), err)
	}
	return nil
}

// dropTag deletes o's tag once nothing carries it, when its description
// is o's exact tag (lab made it).
func (p *Provider) dropTag(ctx context.Context, o machine.Owner) error {
	p.tagMu.Lock()
	defer p.tagMu.Unlock()
	m, err := p.tagManager(ctx)
	if err != nil {
		return err
	}
	cat, err := p.category(ctx, m, false)
	if err != nil || cat == "" {
		return err
	}
	t, err := findTag(ctx, m, cat, tagName(o))
	if err != nil || t == nil || t.Description != o.Tag("tag") {
		return err
	}
	objs, err := m.ListAttachedObjects(ctx, t.ID)
	if err != nil {
		return fmt.Errorf("list objects tagged %q: %w", t.Name, err)
	}
	c, _, err := p.session(ctx)
	if err != nil {
		return err
	}
	for _, o := range objs {
		// A destroyed VM may stay associated for a while (the simulator
		// keeps it for good): only objects that exist hold the tag.
		var e mo.ManagedEntity
		err := object.NewCommon(c.Client, o.Reference()).Properties(ctx, o.Reference(), []string{"name"}, &e)
		if err == nil {
			return nil
		}
		if !isNotFound(err) {
			return fmt.Errorf("objects tagged %q: %w", t.Name, err)
		}
	}
	if err := m.DeleteTag(ctx, t); err != nil {
		return fmt.Errorf("delete tag %q: %w", t.Name, err)
	}
	return dropCategory(ctx, m, cat)
}

// dropCategory deletes the category when lab made it (its description is
// categoryDescription) and it holds no tag any more; a category of that
// name made by hand stays.
func dropCategory(ctx context.Context, m *tags.Manager, id string) error {
	c, err := m.GetCategory(ctx, id)
	if err != nil {
		return fmt.Errorf("read tag category: %w", err)
	}
	if c.Description != categoryDescription {
		return nil
	}
	ts, err := m.GetTagsForCategory(ctx, id)
	if err != nil || len(ts) > 0 {
		return err
	}
	if err := m.DeleteCategory(ctx, c); err != nil {
		return fmt.Errorf("delete tag category %s: %w", c.Name, err)
	}
	return nil
}

// categoryDescription marks a tag category lab made.
const categoryDescription = "Owner tags of lab (github.com/lab-bench/lab)"

// category returns the id of tag_category, creating it when create is
// set ("" when it does not exist and create is not set).
func (p *Provider) category(ctx context.Context, m *tags.Manager, create bool) (string, error) {
	name := p.cfg.TagCategory
	find := func() (string, error) {
		cats, err := m.GetCategories(ctx)
		if err != nil {
			return "", fmt.Errorf("list tag categories: %w", err)
		}
		for _, c := range cats {
			if c.Name == name {
				return c.ID, nil
			}
		}
		return "", nil
	}
	id, err := find()
	if err != nil || id != "" || !create {
		return id, err
	}
	id, err = m.CreateCategory(ctx, &tags.Category{Name: name, Description: categoryDescription,
		Cardinality: "MULTIPLE", AssociableTypes: []string{"VirtualMachine"}})
	if err != nil {
		// Another lab process may have made it meanwhile.
		if id, ferr := find(); ferr == nil && id != "" {
			return id, nil
		}
		return "", fmt.Errorf("create tag category %s: %w", name, err)
	}
	return id, nil
}

// findTag returns the tag of that name in the category, or nil.
func findTag(ctx context.Context, m *tags.Manager, cat, name string) (*tags.Tag, error) {
	ts, err := m.GetTagsForCategory(ctx, cat)
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	for i := range ts {
		if ts[i].Name == name {
			return &ts[i], nil
		}
	}
	return nil, nil
}
