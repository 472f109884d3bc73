package local

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Ownership. Every veth end carries its owner's tag as its interface alias,
// and every namespace carries it as the alias of its loopback interface,
// set before the namespace gets its name (netns.go). Nothing is deleted —
// not at Delete, not as a "leftover" before a create, not by an orphan
// sweep — unless its tag names this exact lab and workspace, with one
// exception for what cannot be created with its tag in one step: a veth
// pair (`ip link add`, then the aliases) and the file `ip netns attach`
// makes before it mounts the namespace on it. Delete of a pending record
// (machine.Instance.Pending: the create never reported success) also
// removes an object of exactly the record's name that carries no tag at
// all, including such a half-made namespace file. docs/PROVIDERS.md,
// "Pending records".

// netnsDir is where iproute2 keeps named namespaces (NETNS_RUN_DIR).
const netnsDir = "/run/netns"

// nsfsMagic is the file system type of a mounted namespace (NSFS_MAGIC,
// linux/magic.h).
const nsfsMagic = 0x6e736673

// halfMade reports whether /run/netns/ns exists but is not a namespace:
// `ip netns add` and `ip netns attach` create the file (open
// O_CREAT|O_EXCL) and then bind-mount the namespace on it (iproute2
// ip/ipnetns.c, netns_add); killed between the two they leave an empty
// file that `ip netns list` lists and every `ip -n` refuses ("setting the
// network namespace … failed: Invalid argument").
func halfMade(ns string) bool {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(netnsDir+"/"+ns, &fs); err != nil {
		return false // gone, or unreadable: the ip commands will say
	}
	return fs.Type != nsfsMagic
}

// claim checks that lab may delete the interface or namespace with alias
// tag for owner o: it is o's (owned), or pending is set (o's record was
// written before the create and never confirmed) and it carries no tag.
func claim(o machine.Owner, pending bool, kind, name, tag string) error {
	if pending && tag == "" {
		return nil
	}
	return owned(o, kind, name, tag)
}

// ifAlias returns the alias of interface dev, in namespace ns ("" for the
// host's); exists is false when there is no such interface or namespace.
func (p *Provider) ifAlias(ctx context.Context, ns, dev string) (alias string, exists bool, err error) {
	argv := []string{"ip", "-j", "link", "show", "dev", dev}
	if ns != "" {
		argv = []string{"ip", "-n", ns, "-j", "link", "show", "dev", dev}
	}
	out, err := p.exec(ctx, argv...)
	if notFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	var ifs []struct {
		Alias string `json:"ifalias"`
	}
	if err := json.Unmarshal(out, &ifs); err != nil || len(ifs) == 0 {
		return "", false, fmt.Errorf("%s: parse %q: %v", dev, out, err)
	}
	return ifs[0].Alias, true, nil
}

// owned checks that the interface or namespace with alias tag belongs to
// o. A record written by lab 0.1 (no workspace) names objects that carry
// no tag of this format; those are matched by the exact name the state
// recorded.
func owned(o machine.Owner, kind, name, tag string) error {
	if o.Workspace == "" && (tag == "" || strings.HasPrefix(tag, "lab:"+o.Lab+":")) {
		return nil
	}
	if o.Owns(tag) {
		return nil
	}
	return &providers.NotOwnedError{Kind: kind, Name: name, Tag: tag, Owner: o}
}
