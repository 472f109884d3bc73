package changepoint

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"testing"
)

// reference is testdata/reference.json, written by testdata/reference.py.
type reference struct {
	MaxP    float64 `json:"max_p"`
	SplitP  float64 `json:"split_p"`
	MinSize int     `json:"min_size"`
	Cases   []struct {
		Name         string     `json:"name"`
		Series       []float64  `json:"series"`
		Qhat         []*float64 `json:"qhat"`
		ChangePoints []struct {
			Index      int     `json:"index"`
			Qhat       float64 `json:"qhat"`
			P          float64 `json:"p"`
			MeanBefore float64 `json:"mean_before"`
			MeanAfter  float64 `json:"mean_after"`
			Diff       float64 `json:"diff"`
			DiffLow    float64 `json:"diff_low"`
			DiffHigh   float64 `json:"diff_high"`
		} `json:"change_points"`
	} `json:"cases"`
}

// close says a and b agree to rel relative (or 1e-12 absolute) error.
func close(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) || math.Abs(a-b) < 1e-12
}

// TestReference checks Detect and Qhat against the independent Python
// implementation's outputs (testdata/reference.py): the same change
// points, q̂ to 1e-9 and p-values and intervals to 1e-6 relative error
// (the two compute the incomplete beta function and the t quantile
// differently).
func TestReference(t *testing.T) {
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	opt := Options{MaxP: ref.MaxP, SplitP: ref.SplitP, MinSize: ref.MinSize}
	found := 0
	for _, c := range ref.Cases {
		q := Qhat(c.Series, ref.MinSize)
		for tau, want := range c.Qhat {
			if (want == nil) != math.IsNaN(q[tau]) || want != nil && !close(q[tau], *want, 1e-9) {
				t.Errorf("%s: q̂(%d) = %v, reference %v", c.Name, tau, q[tau], want)
			}
		}
		got := Detect(c.Series, opt)
		if len(got) != len(c.ChangePoints) {
			t.Errorf("%s: %d change points %v, reference %d %v", c.Name, len(got), got, len(c.ChangePoints), c.ChangePoints)
			continue
		}
		for i, w := range c.ChangePoints {
			g := got[i]
			s := g.Stats
			if g.Index != w.Index || !close(g.Qhat, w.Qhat, 1e-9) || !close(s.P, w.P, 1e-6) ||
				!close(s.MeanBefore, w.MeanBefore, 1e-12) || !close(s.MeanAfter, w.MeanAfter, 1e-12) ||
				!close(s.DiffLow, w.DiffLow, 1e-6) || !close(s.DiffHigh, w.DiffHigh, 1e-6) {
				t.Errorf("%s: change point %d = %+v, reference %+v", c.Name, i, g, w)
			}
			found++
		}
	}
	if found < 4 {
		t.Errorf("only %d change points compared", found)
	}
}

// TestReferenceScriptReproduces runs testdata/reference.py, when python3
// is here, and checks it writes reference.json byte for byte: the golden
// file is what the documented script gives, not an edited copy.
func TestReferenceScriptReproduces(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	out, err := exec.Command(py, "testdata/reference.py").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Error("testdata/reference.py no longer writes testdata/reference.json: regenerate it (see the script's doc) and review the diff")
	}
}
