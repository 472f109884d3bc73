package spec

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
)

var templateSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "provider"}, {Name: "source"}, {Name: "os"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "ssh"}, {Type: "cloud_init"}},
}

var cloudInitSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "packages"}, {Name: "user_data"}},
}

var sshSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "user"}, {Name: "private_key_file"}, {Name: "port"},
		{Name: "agent"}, {Name: "known_hosts_file"}, {Name: "ssh_config"}, {Name: "proxy_jump"}},
}

// decodeTemplates decodes template blocks; providers must be decoded first.
func (l *loader) decodeTemplates(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		t, d := l.decodeTemplate(b)
		diags = append(diags, d...)
		if prev := l.lab.Templates[t.Name]; prev != nil {
			diags = append(diags, errorf(b.DefRange, "Duplicate template",
				"A template named %q was already declared at %s.", t.Name, declaredAt(prev.DeclRange)))
			continue
		}
		l.lab.Templates[t.Name] = t
	}
	return diags
}

func (l *loader) decodeTemplate(b *hcl.Block) (*Template, hcl.Diagnostics) {
	t := &Template{Name: b.Labels[0], OS: "linux", DeclRange: b.DefRange}
	var diags hcl.Diagnostics
	if d := checkName(b, 0, "template", blockNameRe, blockNameRule); d != nil {
		diags = append(diags, d)
	}
	content, d := b.Body.Content(templateSchema)
	diags = append(diags, d...)

	if a := content.Attributes["provider"]; a != nil {
		names, d := refTraversal(a.Expr, "provider", 2)
		if d != nil {
			diags = append(diags, d)
		} else if key := names[0] + "." + names[1]; l.lab.Providers[key] == nil {
			diags = append(diags, errorf(a.Expr.Range(), "Reference to undeclared provider",
				"No provider %q %q is declared (declared: %s).", names[0], names[1], joinNames(slices.Sorted(maps.Keys(l.lab.Providers)))))
		} else {
			t.Provider = key
		}
	} else if len(l.lab.Providers) == 1 {
		for k := range l.lab.Providers {
			t.Provider = k
		}
	} else {
		diags = append(diags, errorf(b.DefRange, "Missing provider",
			"The lab declares %d providers (%s); say which one this template uses with provider = provider.<type>.<name>.",
			len(l.lab.Providers), joinNames(slices.Sorted(maps.Keys(l.lab.Providers)))))
	}

	if a := content.Attributes["source"]; a != nil {
		s, d := l.evalString(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if !sourceRe.MatchString(s) {
				diags = append(diags, attrErr(a, "Invalid template source",
					"%q is not a valid source: use letters, digits, spaces and . _ : / @ + ~ - (at most 255).", truncate(s, 60)))
			}
			t.Source = s
		}
	}
	if a := content.Attributes["os"]; a != nil {
		s, d := l.evalString(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if guest.Registered(s) {
				t.OS = s
			} else {
				diags = append(diags, attrErr(a, "Invalid operating system",
					`os must be %s, got %q.`, quotedOr(guest.Names()), truncate(s, 40)))
			}
		}
	}

	sshBlocks := content.Blocks.OfType("ssh")
	sb, d := singleBlock(sshBlocks, "ssh")
	diags = append(diags, d...)
	if sb != nil {
		ssh, d := l.decodeSSH(sb)
		diags = append(diags, d...)
		t.SSH = ssh
	}
	cb, d := singleBlock(content.Blocks.OfType("cloud_init"), "cloud_init")
	diags = append(diags, d...)
	if cb != nil {
		ci, d := l.decodeCloudInit(cb)
		diags = append(diags, d...)
		t.CloudInit, t.CloudInitRange = ci, cb.DefRange
	}
	return t, diags
}

// packageNameRe is a Debian/RPM package name (with an optional =version).
var packageNameRe = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9+._-]{0,127}(=[a-zA-Z0-9+.:~_-]{1,64})?$`)

// decodeCloudInit reads cloud_init { packages = [...] user_data = ... }.
func (l *loader) decodeCloudInit(b *hcl.Block) (*machine.CloudInit, hcl.Diagnostics) {
	ci := &machine.CloudInit{}
	content, diags := b.Body.Content(cloudInitSchema)
	if a := content.Attributes["packages"]; a != nil {
		v, d := l.evalValue(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if v.IsNull() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
				diags = append(diags, attrErr(a, "Invalid packages", `packages must be a list of package names, like ["iperf3", "ethtool"].`))
			} else {
				for it := v.ElementIterator(); it.Next(); {
					_, e := it.Element()
					if e.IsNull() || e.Type() != cty.String || !packageNameRe.MatchString(e.AsString()) {
						diags = append(diags, attrErr(a, "Invalid package name",
							"%s is not a package name (letters, digits, + . _ -, optionally =version).", e.GoString()))
						continue
					}
					ci.Packages = append(ci.Packages, e.AsString())
				}
			}
		}
	}
	if a := content.Attributes["user_data"]; a != nil {
		s, d := l.evalString(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if !strings.HasPrefix(s, "#cloud-config") && !strings.HasPrefix(s, "#!") {
				diags = append(diags, attrErr(a, "Invalid user_data",
					`user_data must be a cloud-config document (first line "#cloud-config") or a script ("#!…"); read a file with file("user-data.yaml").`))
			}
			ci.UserData = s
		}
	}
	return ci, diags
}

// decodeSSH reads a template's ssh {} block: the pinned-key login (user,
// private_key_file, port) and the OpenSSH vocabulary the hosts and bhyve
// provider blocks share: agent, known_hosts_file, ssh_config and
// proxy_jump (reach the guest through jump hosts, e.g. the hypervisor).
func (l *loader) decodeSSH(b *hcl.Block) (*machine.Login, hcl.Diagnostics) {
	s := &machine.Login{Port: 22}
	content, diags := b.Body.Content(sshSchema)
	if a := content.Attributes["user"]; a != nil {
		u, d := l.evalString(a)
		diags = append(diags, d...)
		if !d.HasErrors() && !sshUserRe.MatchString(u) {
			diags = append(diags, attrErr(a, "Invalid SSH user",
				"%q is not a valid user name: use lower-case letters, digits, _ . - (at most 32).", truncate(u, 40)))
		}
		s.User = u
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"private_key_file", &s.PrivateKeyFile}, {"known_hosts_file", &s.KnownHostsFile}, {"ssh_config", &s.SSHConfig}} {
		a := content.Attributes[f.name]
		if a == nil {
			continue
		}
		p, d := l.evalString(a)
		diags = append(diags, d...)
		if !d.HasErrors() && (p == "" || hasControl(p)) {
			diags = append(diags, attrErr(a, "Invalid "+strings.ReplaceAll(f.name, "_", " "),
				"%s must be a non-empty path without control characters.", f.name))
		}
		*f.dst = p
	}
	if a := content.Attributes["port"]; a != nil {
		p, d := l.evalInt(a, 1, 65535)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.Port = p
		}
	} else if s.SSHConfig != "" {
		s.Port = 0 // the ssh_config entry's Port, else 22
	}
	if a := content.Attributes["agent"]; a != nil {
		v, d := l.evalValue(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			on, dd := toBool(v, a.Expr.Range(), a.Name)
			if dd != nil {
				diags = append(diags, dd)
			}
			s.Agent = on
		}
	}
	if a := content.Attributes["proxy_jump"]; a != nil {
		j, d := l.evalString(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if err := machine.CheckProxyJump(j); err != nil || j == "" {
				diags = append(diags, attrErr(a, "Invalid proxy_jump",
					"proxy_jump must be \"[user@]host[:port]\", hops separated by commas (%q).", truncate(j, 60)))
			}
			s.ProxyJump = j
		}
	}
	return s, diags
}

// quotedOr lists names for a message: "linux" or "freebsd"; "a", "b" or "c".
func quotedOr(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
