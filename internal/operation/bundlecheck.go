package operation

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/providers"
)

// UsedProviders are the keys ("hosts.bench") of the providers whose
// templates the lab's experiments use, through their pairs' server,
// client and router ends, sorted.
func UsedProviders(lab *spec.Lab) []string {
	used := map[string]bool{}
	for _, e := range lab.Experiments {
		for _, name := range e.Pairs {
			p := lab.Pairs[name]
			if p == nil {
				continue
			}
			for _, tn := range []string{p.Server, p.Client, p.Via} {
				if t := lab.Templates[tn]; t != nil {
					used[t.Provider] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(used))
}

// SpecBackEnds are the distinct provider types ("local", "hosts") of
// UsedProviders, sorted: the back ends an apply of the lab runs on.
// Publish writes them into bundle.json; reproduce checks them there.
func SpecBackEnds(lab *spec.Lab) []string {
	var out []string
	for _, key := range UsedProviders(lab) {
		if pb := lab.Providers[key]; pb != nil && !slices.Contains(out, pb.Type) {
			out = append(out, pb.Type)
		}
	}
	slices.Sort(out)
	return out
}

// CheckBundleSpec checks, right after the bundle's spec loaded and before
// anything is planned or applied, that bundle.json says what the spec is:
// its lab name, its hash, and the back ends it really uses (a bundle
// claiming "local" whose spec borrows machines over SSH would run as root
// there, with the reader's default key).
func CheckBundleSpec(lab *spec.Lab, dir string, info bundle.Info) error {
	if lab.Name != info.Lab {
		return fmt.Errorf("bundle %s: %s says lab %q, the spec in %s/ is lab %q", dir, bundle.InfoFile, info.Lab, bundle.SpecDir, lab.Name)
	}
	if lab.Hash != info.SpecHash {
		return fmt.Errorf("bundle %s: the spec in %s/ hashes to %.12s, %s says %.12s", dir, bundle.SpecDir, lab.Hash, bundle.InfoFile, info.SpecHash)
	}
	claimed := slices.Sorted(slices.Values(info.BackEnds))
	if uses := SpecBackEnds(lab); !slices.Equal(claimed, uses) {
		return fmt.Errorf("bundle %s: %s says back_ends %q, its spec uses %q: refusing a bundle that does not say where it runs",
			dir, bundle.InfoFile, claimed, uses)
	}
	return nil
}

// Reaches says where the lab's used providers connect, one
// "key: where" per place, for a reader to check before approving an
// apply of someone else's spec; a provider that cannot say is listed as
// "key: (not said)".
func Reaches(lab *spec.Lab, provs map[string]providers.Provider) []string {
	var out []string
	for _, key := range UsedProviders(lab) {
		r, ok := provs[key].(providers.Reacher)
		where := []string{"(not said)"}
		if ok {
			where = r.Reaches()
		}
		for _, w := range where {
			out = append(out, key+" "+strings.TrimSpace(w))
		}
	}
	return out
}
