package report

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// measureScript runs in the report page after its own script and writes
// what TestReportAtNarrowWidth checks into <pre id="measure">: the
// viewport's width, the page's scroll width, every element (outside an
// element that scrolls horizontally) whose right edge passes the
// viewport's and whose parent's does not, every SVG text whose rendered
// font size (its computed size times the SVG's scale on screen) is under
// minTextPx, and every SVG text that reaches past its SVG's side as the
// browser draws it (in its own font, which need not be the Liberation
// gonum measured with).
const measureScript = `<script>
(function () {
  var vw = document.documentElement.clientWidth, out = {vw: vw, scroll: document.documentElement.scrollWidth, wide: [], small: [], clipped: [], texts: 0};
  var wide = new Set();
  function scrolls(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var s = getComputedStyle(p).overflowX;
      if (s === "auto" || s === "scroll") { return true; }
    }
    return false;
  }
  function name(el) { return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.getAttribute("class") ? "." + el.getAttribute("class") : ""); }
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") { return; }
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 0.5 && !scrolls(el)) {
      wide.add(el);
      if (!wide.has(el.parentElement)) { out.wide.push(name(el) + " right " + Math.round(r.right)); }
    }
  });
  document.querySelectorAll("svg text").forEach(function (t) {
    if (!t.textContent.trim()) { return; }
    out.texts++;
    var m = t.getScreenCTM(), px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    if (px < MIN) { out.small.push(t.textContent + " " + px.toFixed(1) + " px"); }
    var r = t.getBoundingClientRect(), s = t.ownerSVGElement.getBoundingClientRect();
    // Sideways only, by more than 3 px: a line's box holds its ascent's
    // blank (a y axis's label, turned, reaches 2 px past the left edge).
    if (r.left < s.left - 3 || r.right > s.right + 3) {
      out.clipped.push(t.textContent + " [" + Math.round(r.left - s.left) + ", " + Math.round(r.right - s.left) + "] in a " + Math.round(s.width) + " px wide figure");
    }
  });
  var pre = document.createElement("pre");
  pre.id = "measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

// minTextPx is the smallest plot text a reader is asked to read, in CSS
// pixels (a browser's default text is 16 px; gonum's tick labels are 10
// pt, 13.3 px, at their natural size).
const minTextPx = 10

var measureRE = regexp.MustCompile(`<pre id="measure">([^<]*)</pre>`)

// TestReportAtNarrowWidth opens each recorded example's HTML report, every
// drill-down open, in headless Chromium 800 px wide: no element runs past
// the viewport unless it sits in a container that scrolls sideways (the
// results table once ran off the page), and every plot's text is at
// least minTextPx (the throughput and CPU figure once shrank to 6.5 px
// while the other panels stayed at full size, issue 35) and inside its
// figure (in DejaVu Serif, wider than the Liberation Serif gonum measured
// with, the CPU panel's last label read "mtu=900" and the effects plot's
// "gro × strea").
func TestReportAtNarrowWidth(t *testing.T) {
	bin := chromium(t)
	for _, e := range exampleRuns {
		t.Run(e.name, func(t *testing.T) {
			s, _ := openExamplePage(t, e.name)
			s = strings.Replace(s, "</body>", strings.Replace(measureScript, "MIN", strconv.Itoa(minTextPx), 1)+"</body>", 1)
			path := filepath.Join(t.TempDir(), e.name+".html")
			if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			if dir := os.Getenv("LAB_PLOT_DIR"); dir != "" { // to look at
				os.WriteFile(filepath.Join(dir, e.name+"-narrow.html"), []byte(s), 0o644)
			}
			dom, console := headless(t, bin, path, "--dump-dom", "--window-size=800,2000")
			if len(console) > 0 {
				t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
			}
			m := measureRE.FindStringSubmatch(dom)
			if m == nil {
				t.Fatalf("the measuring script did not run:\n%.500s", dom)
			}
			var got struct {
				VW, Scroll, Texts    int
				Wide, Small, Clipped []string
			}
			if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
				t.Fatal(err)
			}
			if got.VW < 700 || got.VW > 800 || got.Texts < 20 {
				t.Fatalf("viewport %d px wide, %d plot texts: not the page meant", got.VW, got.Texts)
			}
			if got.Scroll > got.VW {
				t.Errorf("the page is %d px wide in a %d px viewport", got.Scroll, got.VW)
			}
			for i, w := range got.Wide {
				if i == 10 {
					t.Errorf("… %d more", len(got.Wide)-10)
					break
				}
				t.Errorf("past the viewport, outside a scrolling container: %s", w)
			}
			for i, w := range got.Clipped {
				if i == 10 {
					t.Errorf("… %d more", len(got.Clipped)-10)
					break
				}
				t.Errorf("plot text cut off by its figure's edge, in the browser's font: %s", w)
			}
			for i, w := range got.Small {
				if i == 10 {
					t.Errorf("… %d more", len(got.Small)-10)
					break
				}
				t.Errorf("plot text under %d px: %s", minTextPx, w)
			}
		})
	}
}
