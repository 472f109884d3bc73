package libvirt

import (
	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Ownership. Every domain lab defines carries its owner's tag
// (machine.Owner.Tag) in its <metadata>, and so does every network it
// creates. Volumes carry no metadata in libvirt, so lab proves an overlay
// its own through its domain: the domain is defined first, naming its
// volume in that metadata, and the volume is created after; a volume is
// deleted only together with a domain of this owner that names it. A volume
// with an overlay's name and no such domain is never deleted: a create
// refuses it, a delete leaves it. Nothing is deleted — at Delete, as a
// leftover before a create, or by an orphan sweep — unless its tag names
// this exact lab and workspace; anything else is refused with a
// *providers.NotOwnedError naming it, and the engine records nothing for it.

// owns reports whether an object whose lab tag is tag (labID: the lab id an
// older lab wrote instead) is o's. A state written by lab 0.1 records no
// workspace; its objects are matched by lab id.
func owns(o machine.Owner, tag, labID string) bool {
	if o.Workspace == "" {
		return o.Lab != "" && labID == o.Lab
	}
	return o.Owns(tag)
}

// notOwned is the refusal for the object kind name, carrying tag.
func notOwned(o machine.Owner, kind, name, tag string) error {
	return &providers.NotOwnedError{Kind: kind, Name: name, Tag: tag, Owner: o}
}

// networkOwner reads a network's tag; exists is false when there is none
// of that name.
func networkOwner(l *golibvirt.Libvirt, name string) (n golibvirt.Network, tag string, exists bool, err error) {
	n, err = l.NetworkLookupByName(name)
	if isNotFound(err) {
		return n, "", false, nil
	} else if err != nil {
		return n, "", false, callErr("NetworkLookupByName", name, err)
	}
	x, err := l.NetworkGetXMLDesc(n, 0)
	if isNotFound(err) {
		return n, "", false, nil
	} else if err != nil {
		return n, "", true, callErr("NetworkGetXMLDesc", name, err)
	}
	return n, networkTag(x), true, nil
}
