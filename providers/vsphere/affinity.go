package vsphere

import (
	"context"
	"fmt"
	"strings"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// keep_together: a pair's machines are named <base>-s and <base>-c (and
// <base>-r for a router); the pair's VM–VM affinity rule is named
// "lab <base>". The machine cloned second finds the first in the lab's
// folder and adds the rule with both, before its own power-on, so DRS
// places it beside the first.

// pairBase is the name a pair's machines share ("" for a name lab did
// not make).
func pairBase(name string) string {
	for _, suffix := range []string{"-s", "-c", "-r"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			return base
		}
	}
	return ""
}

func ruleName(base string) string { return "lab " + base }

// keepTogether adds the affinity rule of name's pair when its other VMs
// exist; the first of a pair to be cloned finds none and adds nothing.
func (p *Provider) keepTogether(ctx context.Context, cl *object.ClusterComputeResource, folder *object.Folder, name string) error {
	base := pairBase(name)
	if base == "" {
		return nil
	}
	p.ruleMu.Lock()
	defer p.ruleMu.Unlock()
	var vms []types.ManagedObjectReference
	for _, suffix := range []string{"-s", "-c", "-r"} {
		refs, err := childrenNamed(ctx, folder, "VirtualMachine", base+suffix)
		if err != nil {
			return err
		}
		vms = append(vms, refs...)
	}
	if len(vms) < 2 {
		return nil
	}
	rule, err := findRule(ctx, cl, ruleName(base))
	if err != nil {
		return err
	}
	spec := types.ClusterRuleSpec{ArrayUpdateSpec: types.ArrayUpdateSpec{Operation: types.ArrayUpdateOperationAdd},
		Info: &types.ClusterAffinityRuleSpec{ClusterRuleInfo: types.ClusterRuleInfo{Name: ruleName(base),
			Enabled: types.NewBool(true), Mandatory: types.NewBool(true)}, Vm: vms}}
	if rule != nil {
		spec.Operation = types.ArrayUpdateOperationEdit
		spec.Info.GetClusterRuleInfo().Key = rule.Key
	}
	err = wait(ctx, func() (*object.Task, error) {
		return cl.Reconfigure(ctx, &types.ClusterConfigSpecEx{RulesSpec: []types.ClusterRuleSpec{spec}}, true)
	})
	if err != nil {
		return fmt.Errorf("rule %q: %w", ruleName(base), err)
	}
	return nil
}

// dropRule removes the affinity rule of name's pair, if there is one.
func (p *Provider) dropRule(ctx context.Context, cl *object.ClusterComputeResource, name string) error {
	base := pairBase(name)
	if base == "" {
		return nil
	}
	p.ruleMu.Lock()
	defer p.ruleMu.Unlock()
	rule, err := findRule(ctx, cl, ruleName(base))
	if err != nil || rule == nil {
		return err
	}
	spec := types.ClusterRuleSpec{ArrayUpdateSpec: types.ArrayUpdateSpec{Operation: types.ArrayUpdateOperationRemove, RemoveKey: rule.Key}}
	err = wait(ctx, func() (*object.Task, error) {
		return cl.Reconfigure(ctx, &types.ClusterConfigSpecEx{RulesSpec: []types.ClusterRuleSpec{spec}}, true)
	})
	if err != nil && !fault.Is(err, &types.InvalidArgument{}) {
		return fmt.Errorf("rule %q: %w", ruleName(base), err)
	}
	return nil
}

// findRule returns the cluster rule of that name (nil: none).
func findRule(ctx context.Context, cl *object.ClusterComputeResource, name string) (*types.ClusterRuleInfo, error) {
	var cc mo.ClusterComputeResource
	if err := cl.Properties(ctx, cl.Reference(), []string{"configurationEx"}, &cc); err != nil {
		return nil, fmt.Errorf("read the rules of %s: %w", cl.Reference().Value, err)
	}
	ex, ok := cc.ConfigurationEx.(*types.ClusterConfigInfoEx)
	if !ok {
		return nil, nil
	}
	for _, r := range ex.Rule {
		if info := r.GetClusterRuleInfo(); info.Name == name {
			return info, nil
		}
	}
	return nil, nil
}
