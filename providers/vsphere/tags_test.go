package vsphere

import (
	"context"
	"net/url"
	"testing"

	"github.com/vmware/govmomi/vapi/rest"
	"github.com/vmware/govmomi/vapi/tags"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// adminTags is the tagging API as an administrator uses it beside lab.
func adminTags(t *testing.T, sim *vspheretest.Sim) *tags.Manager {
	t.Helper()
	rc := rest.NewClient(sim.Client.Client)
	if err := rc.Login(context.Background(), url.UserPassword(sim.Username, sim.Password)); err != nil {
		t.Fatal(err)
	}
	return tags.NewManager(rc)
}

// TestTags: with tag_category, each VM carries its owner's tag in that
// category (made when missing); the tag lab made goes with the last VM;
// a tag of that name made by hand is used and left in place; the category
// lab made goes with its last tag, one made by hand stays.
func TestTags(t *testing.T) {
	for _, handMade := range []bool{false, true} {
		t.Run(map[bool]string{false: "made by lab", true: "made by hand"}[handMade], func(t *testing.T) {
			sim := vspheretest.Start(t)
			admin := adminTags(t, sim)
			ctx := context.Background()
			owner := machine.Owner{Lab: "tg", Workspace: testWS}
			if handMade {
				cat, err := admin.CreateCategory(ctx, &tags.Category{Name: "lab", Cardinality: "MULTIPLE", AssociableTypes: []string{"VirtualMachine"}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := admin.CreateTag(ctx, &tags.Tag{Name: tagName(owner), Description: "ours, by hand", CategoryID: cat}); err != nil {
					t.Fatal(err)
				}
			}
			p := configured(t, sim, `tag_category = "lab"`)
			var made []machine.Instance
			for _, role := range []string{"server", "client"} {
				in, err := p.Create(ctx, testMachine("tg", "p", role, vspheretest.FreeBSD, "freebsd"))
				if err != nil {
					t.Fatal(err)
				}
				made = append(made, in)
				attached, err := admin.GetAttachedTags(ctx, types.ManagedObjectReference{Type: "VirtualMachine", Value: in.ID})
				if err != nil || len(attached) != 1 || attached[0].Name != "lab=tg ws=ws000001" {
					t.Errorf("%s: tags %+v, %v", role, attached, err)
				}
			}
			for i, in := range made {
				if err := p.Delete(ctx, in); err != nil {
					t.Fatal(err)
				}
				cat, err := admin.GetCategory(ctx, "lab")
				if i == 1 && !handMade {
					// The category lab made goes with its last tag.
					if err == nil {
						t.Errorf("category %+v left after the last VM", cat)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				ts, err := admin.GetTagsForCategory(ctx, cat.ID)
				if err != nil {
					t.Fatal(err)
				}
				wantTag := i == 0 || handMade // kept while a VM carries it; a hand-made one always
				if got := len(ts) == 1; got != wantTag {
					t.Errorf("after deleting %d of 2 VMs: tags %+v, want the tag kept: %v", i+1, ts, wantTag)
				}
			}
		})
	}
}
