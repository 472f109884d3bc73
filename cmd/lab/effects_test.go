package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/verdicts"
)

// TestEffects runs `lab effects` on a recorded run of the quickstart
// (mtu × gro × streams; testdata/records/quickstart-8cells, the pinned
// bundle's run before issue 32 made it two cells): the table, the JSON,
// -metric, a run by alias and the errors.
func TestEffects(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "results"), os.DirFS("../../testdata/records/quickstart-8cells")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runLab(t, "", "-chdir="+dir, "effects", "-metric", "throughput_bps", "latest")
	for _, w := range []string{`Run 20261201T113443Z of lab "quickstart": factor effects`,
		"mtu-gro / veth: 40 runs in 8 cells; factors mtu (2 levels), gro (2 levels), streams (2 levels)",
		"throughput Gb/s: mean 11.077 [8.518, 13.637], residual sd 7.956 on 33 df (40 runs)",
		"mtu            9000 − 1500                     +4.217  [-0.902, 9.336]   2.81  0.103",
		"mtu × gro      (9000 − 1500) × (true − false)  +8.022  [-2.216, 18.260]  2.54  0.120"} {
		if !strings.Contains(out, w) {
			t.Errorf("effects lacks %q (exit %d):\n%s%s", w, code, out, errOut)
		}
	}
	if strings.Contains(out, "retransmits") {
		t.Errorf("-metric throughput_bps printed other metrics:\n%s", out)
	}
	code, out, errOut = runLab(t, "", "-chdir="+dir, "effects", "-json")
	var got struct {
		Run     string                   `json:"run"`
		Effects []verdicts.FactorEffects `json:"effects"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Run != "20261201T113443Z" || len(got.Effects) != 1 {
		t.Fatalf("effects -json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	keys := ""
	for _, m := range got.Effects[0].Metrics {
		keys += m.Metric + " "
	}
	if keys != "throughput_bps retransmits server_cpu_pct client_cpu_pct " {
		t.Errorf("metrics %q", keys)
	}
	if c := got.Effects[0].Metrics[0].Terms[0].Contrast; c == nil || c.Levels[0] != "9000 − 1500" || !c.Known {
		t.Errorf("mtu contrast %+v", c)
	}
	for _, tc := range []struct{ args, want string }{
		{"-metric nope", `no metric "nope"`}, {"previous", `"previous"`}, {"20990101T000000Z", "no run 20990101T000000Z"},
	} {
		code, _, errOut := runLab(t, "", append([]string{"-chdir=" + dir, "effects"}, strings.Fields(tc.args)...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("effects %s: exit %d, want 1 and %q:\n%s", tc.args, code, tc.want, errOut)
		}
	}
	if code, out, _ := runLab(t, "", "help"); code != 0 || !strings.Contains(out, "effects") {
		t.Errorf("help lacks effects:\n%s", out)
	}
	if _, out, _ := runLab(t, "", "__complete", "effects"); out != "-json\n-metric\n-no-color\n" {
		t.Errorf("completion of effects' flags: %q", out)
	}
}
