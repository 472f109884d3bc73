package state

import (
	"os"
	"path/filepath"
	"testing"
)

// A format 1 state (lab 0.1) kept how to reach a machine in Attrs; it is
// read as format 2 with the same facts in the typed Endpoint.
func TestLoadUpgradesFormat1(t *testing.T) {
	dir := t.TempDir()
	v1 := `{"version": 1, "lineage": "11111111-2222-4333-8444-555555555555", "serial": 3, "resources": [
	  {"address": "pair.p.server", "provider": "libvirt", "kind": "machine", "id": "u", "name": "lab-p-s", "status": "created",
	   "attrs": {"addr": "198.18.0.5", "iface": "enp1s0", "cpus": "0,2", "ssh_user": "root", "ssh_port": "2222",
	             "ssh_private_key_file": "/k", "ssh_host_key": "ssh-ed25519 AAAA", "template_identity": "sha256:ab", "mac": "52:54:00:00:00:01"}},
	  {"address": "pair.p.link", "provider": "libvirt", "kind": "link", "id": "n", "name": "lab-p", "status": "created"}]}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(v1), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Store{Dir: dir}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != Version {
		t.Errorf("version %d, want %d", s.Version, Version)
	}
	ep := s.Resources[0].Endpoint
	if ep == nil || ep.Addr != "198.18.0.5" || ep.Iface != "enp1s0" || len(ep.CPUs) != 2 || ep.CPUs[1] != 2 ||
		ep.SSHHost != "198.18.0.5" || ep.SSH == nil || ep.SSH.Port != 2222 || ep.SSH.HostKey != "ssh-ed25519 AAAA" ||
		ep.SSH.PrivateKeyFile != "/k" || ep.TemplateID != "sha256:ab" {
		t.Errorf("endpoint %+v (ssh %+v)", ep, ep.SSH)
	}
	if s.Resources[0].Attrs["mac"] == "" {
		t.Errorf("the provider's own attrs were lost: %v", s.Resources[0].Attrs)
	}
	if s.Resources[1].Endpoint != nil {
		t.Errorf("a link got an endpoint: %+v", s.Resources[1].Endpoint)
	}
}
