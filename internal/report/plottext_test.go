package report

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// textBox is where an SVG text element's glyphs lie, in the SVG's own
// units with y up (gonum's canvas coordinates).
type textBox struct {
	text                   string
	minX, minY, maxX, maxY float64
}

var (
	svgSizeRE = regexp.MustCompile(`<svg (?:style="[^"]*" )?width="[0-9.]+pt" height="[0-9.]+pt" viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
	// svgTextRE is a text as gonum's vgsvg writes it: in a group turned by
	// rotate(90) for a y axis's label, or not.
	svgTextRE = regexp.MustCompile(`(<g transform="rotate\(90\)">\s*)?<text x="([-0-9.e]+)" y="([-0-9.e]+)" transform="scale\(1, -1\)"\s*style="font-family:'Liberation (Serif|Sans|Mono)'[^"]*font-size:([0-9.]+)px"[^>]*>([^<]*)</text>`)
)

// svgTexts are the canvas's size and the ink boxes of svg's non-blank
// texts, measured with the fonts gonum measured them with (Liberation): a
// text's baseline is at (x, -y); a rotated one's runs up from (y, x).
func svgTexts(t *testing.T, svg string) (w, h float64, boxes []textBox) {
	t.Helper()
	m := svgSizeRE.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no SVG size in %.200s", svg)
	}
	w, _ = strconv.ParseFloat(m[1], 64)
	h, _ = strconv.ParseFloat(m[2], 64)
	for _, m := range svgTextRE.FindAllStringSubmatch(svg, -1) {
		txt := html.UnescapeString(m[6])
		if strings.TrimSpace(txt) == "" {
			continue
		}
		x, _ := strconv.ParseFloat(m[2], 64)
		y, _ := strconv.ParseFloat(m[3], 64)
		size, _ := strconv.ParseFloat(m[5], 64)
		fnt := plot.DefaultFont
		fnt.Variant = font.Variant(m[4])
		face := font.DefaultCache.Lookup(fnt, font.Length(size))
		ext := face.Extents()
		// The font's ascent leaves room for accents over capitals: ink
		// (b, d, l: 0.68 em in Liberation Serif) reaches 0.78 of it.
		width, asc, desc := float64(face.Width(txt)), 0.78*float64(ext.Ascent), float64(ext.Descent)
		if m[1] != "" {
			boxes = append(boxes, textBox{txt, y - asc, x, y + desc, x + width})
			continue
		}
		boxes = append(boxes, textBox{txt, x, -y - desc, x + width, -y + asc})
	}
	return w, h, boxes
}

// textProblems lists svg's texts that reach past its canvas (by more
// than half a point) or overlap another text: by more than a point
// across and more than a third of the lower one's height (the lines of a
// title are a font size apart, so their ascents and descents touch).
func textProblems(t *testing.T, svg string) []string {
	w, h, boxes := svgTexts(t, svg)
	var out []string
	const tol = 0.5
	for i, b := range boxes {
		if b.minX < -tol || b.minY < -tol || b.maxX > w+tol || b.maxY > h+tol {
			out = append(out, fmt.Sprintf("%q at [%.1f, %.1f]-[%.1f, %.1f] leaves the %.0f × %.0f canvas", b.text, b.minX, b.minY, b.maxX, b.maxY, w, h))
		}
		for _, o := range boxes[i+1:] {
			dx := math.Min(b.maxX, o.maxX) - math.Max(b.minX, o.minX)
			dy := math.Min(b.maxY, o.maxY) - math.Max(b.minY, o.minY)
			if dx > 1 && dy > math.Min(b.maxY-b.minY, o.maxY-o.minY)/3 {
				out = append(out, fmt.Sprintf("%q and %q overlap by %.1f × %.1f", b.text, o.text, dx, dy))
			}
		}
	}
	return out
}

// recordedRuns are every recorded run in the repository: the report's
// examples and the published bundles' records.
func recordedRuns(t *testing.T) []struct{ dir, id string } {
	t.Helper()
	var runs []struct{ dir, id string }
	for _, pat := range []string{"testdata/records/*/*/run.json", "../../testdata/records/*/*/run.json", "../../testdata/bundles/*/records/*/run.json"} {
		found, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			id := filepath.Dir(f)
			runs = append(runs, struct{ dir, id string }{filepath.Dir(id), filepath.Base(id)})
		}
	}
	if len(runs) < 8 {
		t.Fatalf("%d recorded runs found", len(runs))
	}
	return runs
}

var inlineSVGRE = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// TestEveryPlotReads renders every plot of every recorded run (the svg
// figure, the time series, each figure of the HTML report and a compare
// of the run with itself) and fails on a text that leaves its canvas or
// overlaps another (issue 35).
func TestEveryPlotReads(t *testing.T) {
	for _, run := range recordedRuns(t) {
		t.Run(filepath.Base(run.dir)+"/"+run.id, func(t *testing.T) {
			info, recs, err := results.Store{Dir: run.dir}.Load(run.id)
			if err != nil {
				t.Fatal(err)
			}
			groups := results.Group(recs)
			svgs := map[string]string{}
			for _, format := range []string{"svg", "timeseries", "html"} {
				var out bytes.Buffer
				if err := Render(&out, format, info, groups, Options{Records: recs}); err != nil {
					if format == "timeseries" {
						continue // a run without intervals
					}
					t.Fatal(err)
				}
				for i, s := range inlineSVGRE.FindAllString(out.String(), -1) {
					svgs[fmt.Sprintf("%s figure %d", format, i+1)] = s
				}
			}
			ds := verdicts.Compare(groups, groups, verdicts.CompareOptions{Threshold: 0.02})
			var cmp bytes.Buffer
			if err := RenderCompareFormat(&cmp, "svg", run.id+"-base", run.id+"-test", ds, CompareOptions{Threshold: 0.02}); err != nil {
				t.Fatal(err)
			}
			svgs["compare"] = cmp.String()
			texts := 0
			for name, s := range svgs {
				_, _, boxes := svgTexts(t, s)
				texts += len(boxes)
				for _, p := range textProblems(t, s) {
					t.Errorf("%s: %s", name, p)
				}
			}
			if texts < 30 {
				t.Errorf("only %d texts in %d figures", texts, len(svgs))
			}
		})
	}
}

// TestTextProblemsSeen: the check above sees a text off the canvas, two
// overlapping texts and a rotated label over a tick, and passes apart
// ones.
func TestTextProblemsSeen(t *testing.T) {
	head := `<svg width="100pt" height="100pt" viewBox="0 0 100 100">`
	text := func(rot bool, x, y float64, s string) string {
		g := ""
		if rot {
			g = `<g transform="rotate(90)">`
		}
		return fmt.Sprintf(`%s<text x="%g" y="%g" transform="scale(1, -1)"
	style="font-family:'Liberation Serif';font-size:10px">%s</text>`, g, x, y, s)
	}
	for _, tc := range []struct {
		body string
		want int
	}{
		{text(false, 10, -50, "apart") + text(false, 10, -30, "apart"), 0},
		{text(false, -5, -50, "left"), 1},
		{text(false, 80, -50, "far too long"), 1},
		{text(false, 10, -50, "one") + text(false, 20, -52, "two"), 1},
		{text(true, 40, 12, "label") + text(false, 2, -45, "tick"), 1},
		{text(true, 40, 12, "label") + text(false, 2, -20, "tick"), 0},
		{text(true, 40, 5, "label"), 1},
	} {
		if got := textProblems(t, head+tc.body+"</svg>"); len(got) != tc.want {
			t.Errorf("%s: %d problems %q, want %d", tc.body, len(got), got, tc.want)
		}
	}
}
