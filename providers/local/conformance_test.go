package local

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/providers/providertest"
)

// TestConformance runs the provider contract's suite against real
// namespaces and veths on this machine. Its foreign object is a namespace
// an administrator made by hand (`ip netns add`, ip-netns(8)) under the
// name lab gives the pair's server, holding a veth pair of theirs.
func TestConformance(t *testing.T) {
	needRoot(t)
	providertest.Conformance(t, providertest.Harness{Type: TypeName, Template: `  os = "linux"`, Pair: `  vcpu = 1`, LabID: "cf",
		Foreign: func(t *testing.T, g *plan.Group) (string, func() string) {
			ns := Namespace(g.Server.Name)
			t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
			for _, argv := range [][]string{{"ip", "netns", "add", ns}, {"ip", "-n", ns, "link", "add", "handmade0", "type", "veth", "peer", "name", "handmade1"}} {
				if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
				}
			}
			return g.Server.Address, func() string {
				// The namespace's interfaces, names and kinds; "" once
				// it is gone.
				out, err := exec.Command("ip", "-n", ns, "-o", "link", "show").Output()
				if err != nil {
					return ""
				}
				var ifs []string
				for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
					if f := strings.Fields(l); len(f) > 1 {
						ifs = append(ifs, f[1])
					}
				}
				return strings.Join(ifs, " ")
			}
		}})
}

// needRoot skips a test that needs root and iproute2, except under CI
// (CI=true), where a missing prerequisite is a failure, not a skip.
func needRoot(t *testing.T) {
	t.Helper()
	skip := t.Skip
	if os.Getenv("CI") == "true" {
		skip = t.Fatal
	}
	if os.Geteuid() != 0 {
		skip("needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		skip("needs iproute2")
	}
}
