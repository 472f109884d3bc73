package libvirt

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/providers"
)

func TestStateName(t *testing.T) {
	for _, tc := range []struct {
		state int32
		want  string
	}{{1, "running"}, {3, "paused"}, {5, "shut off"}, {6, "crashed"}, {42, "in unknown state 42"}} {
		if got := stateName(tc.state); got != tc.want {
			t.Errorf("state %d: %q, want %q", tc.state, got, tc.want)
		}
	}
}

func TestWrongOS(t *testing.T) {
	tmpl := func(os string) providers.Template {
		return providers.Template{Name: "debian", Source: "base.qcow2", OS: os}
	}
	tests := []struct {
		name    string
		tmpl    providers.Template
		kernel  string
		wantErr string
	}{
		{"linux on linux", tmpl("linux"), "Linux", ""},
		{"freebsd on freebsd", tmpl("freebsd"), "FreeBSD", ""},
		{"freebsd template on a linux image", tmpl("freebsd"), "Linux", `template "debian" says os = "freebsd", but the guest's uname -s answers Linux (not FreeBSD)`},
		{"linux template, no answer", tmpl("linux"), "", "answers nothing"},
		{"an OS lab has no check for", tmpl("plan9"), "Plan9", ""},
	}
	for _, tc := range tests {
		err := wrongOS(tc.tmpl, tc.kernel)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}
