package providertest_test

import (
	"testing"

	"github.com/lab-bench/lab/providers/providertest"
)

// TestFakeConforms: the fake back end internal/operation's tests run the
// verbs on keeps the contract the suite checks, so what those tests show
// holds for a real back end too.
func TestFakeConforms(t *testing.T) {
	providertest.RegisterFake()
	providertest.Conformance(t, providertest.Harness{
		Type:     providertest.FakeType,
		Provider: `  region = "test-1"`,
		Template: `  source = "debian-12"`,
	})
}
