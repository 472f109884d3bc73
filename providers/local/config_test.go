package local

import (
	"context"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestConfigureCPUs: cpus is at least 1; below, the error names the value
// at its file:line:column.
func TestConfigureCPUs(t *testing.T) {
	tests := []struct {
		src, detail string
		col         int
	}{
		{"cpus = 1\n", "", 0},
		{"cpus = 0\n", "cpus is the number of CPUs to pin benchmarks to, at least 1; got 0.", 8},
		{"cpus = -5\n", "cpus is the number of CPUs to pin benchmarks to, at least 1; got -5.", 8},
	}
	for _, tt := range tests {
		f, diags := hclsyntax.ParseConfig([]byte(tt.src), "main.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		p := &Provider{CPUs: 4}
		diags = p.Configure(context.Background(), f.Body)
		if tt.detail == "" {
			if diags.HasErrors() || p.CPUs != 1 {
				t.Errorf("%q: %v, cpus %d", tt.src, diags, p.CPUs)
			}
			continue
		}
		if len(diags) != 1 || diags[0].Summary != "Invalid cpus" || diags[0].Detail != tt.detail ||
			diags[0].Subject.Start.Line != 1 || diags[0].Subject.Start.Column != tt.col {
			t.Errorf("%q: got %v", tt.src, diags)
		}
	}
}
