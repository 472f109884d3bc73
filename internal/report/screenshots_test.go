package report

import (
	"bytes"
	"fmt"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
)

// shotSize is the window the screenshots are taken in.
const shotSize = "1400,2800"

// layoutScript writes into <pre id="layout"> the boxes (to 10 px) of the
// page's headings, tables and figures that start within the screenshot.
const layoutScript = `<script>
(function () {
  var lines = [];
  document.querySelectorAll("h1, h2, h3, table, .plot").forEach(function (el) {
    var r = el.getBoundingClientRect(), y = r.top + window.scrollY;
    if (y >= 2800) { return; }
    var name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.getAttribute("class") ? "." + el.getAttribute("class").replace(/ /g, ".") : "");
    var rd = function (v) { return Math.round(v / 10) * 10; };
    lines.push(name + " " + rd(r.left) + "," + rd(y) + " " + rd(r.width) + "x" + rd(r.height));
  });
  var pre = document.createElement("pre");
  pre.id = "layout";
  pre.textContent = lines.join("\n");
  document.body.appendChild(pre);
})();
</script>`

var layoutRE = regexp.MustCompile(`(?s)<pre id="layout">(.*?)</pre>`)

// checkScreenshot compares page's layout in a window of shotSize with
// testdata/screenshots' golden (-update writes it) and the checked-in
// screenshot's size with the one just taken (fresh).
func checkScreenshot(t *testing.T, bin, page, checked string, fresh []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "layout.html")
	if err := os.WriteFile(path, []byte(strings.Replace(page, "</body>", layoutScript+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := headless(t, bin, path, "--dump-dom", "--window-size="+shotSize)
	m := layoutRE.FindStringSubmatch(dom)
	if m == nil || strings.Count(m[1], "\n") < 5 {
		t.Fatalf("no layout measured:\n%.300s", dom)
	}
	name := strings.TrimSuffix(filepath.Base(checked), ".png")
	golden.Check(t, filepath.Join("testdata", "screenshots", name+".layout.golden"), html.UnescapeString(m[1])+"\n")
	b, err := os.ReadFile(checked)
	if err != nil {
		t.Fatalf("%v: run with -update to take it", err)
	}
	size := func(b []byte) string {
		c, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%dx%d", c.Width, c.Height)
	}
	if got, want := size(b), size(fresh); got != want || want != strings.Replace(shotSize, ",", "x", 1) {
		t.Errorf("%s is %s, a screenshot now %s (window %s): take it again with -update", checked, got, want, shotSize)
	}
}
