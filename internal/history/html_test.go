package history

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/headless"
)

// TestHTMLInChromium renders the history of the shifted series and loads
// it in headless Chromium, offline: nothing is fetched from elsewhere,
// the page's script (which throws when a plotted point is not the data's
// apply) finishes without a console message, there is one plot per cell
// with a point linking to each run's report, written beside the page
// (one that was there already is kept) and loading without a console
// message, and the drop is marked once.
func TestHTMLInChromium(t *testing.T) {
	dir := t.TempDir()
	writeApplies(t, dir, 7, 0.03, shifted())
	page := filepath.Join(dir, "history.html")
	kept := filepath.Join(dir, "report-20261101T020000Z.html") // a report there already is not overwritten
	if err := os.WriteFile(kept, []byte("<!DOCTYPE html><title>mine</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runMain(t, dir, "-format", "html", "-o", page)
	if code != ExitOK || !strings.Contains(errOut, "and 22 run reports beside it") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(kept); string(b) != "<!DOCTYPE html><title>mine</title>" {
		t.Error("an existing report beside the page was overwritten")
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)|url\(\s*["']?(https?:|//)|@import|<link\b`)
	if m := ext.Find(b); m != nil {
		t.Errorf("external reference %q", m)
	}
	bin := headless.Chromium(t)
	dom, console := headless.Run(t, bin, page, "--dump-dom")
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the page's script did not finish:\n%.600s", dom)
	}
	if n := strings.Count(dom, "<svg"); n != 2 {
		t.Errorf("%d plots, want 2 (one per cell)", n)
	}
	links := regexp.MustCompile(`href="(report-[0-9TZ]+\.html)"`).FindAllStringSubmatch(dom, -1)
	if len(links) != 2*23 {
		t.Errorf("%d points linking to a report, want %d", len(links), 2*23)
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(dir, l[1])); err != nil {
			t.Errorf("a point links to %s: %v", l[1], err)
		}
	}
	rdom, rconsole := headless.Run(t, bin, filepath.Join(dir, links[len(links)-1][1]), "--dump-dom")
	if len(rconsole) > 0 || !strings.Contains(rdom, "20261123T020000Z") {
		t.Errorf("the newest run's report: console %v\n%.300s", rconsole, rdom)
	}
	if n := strings.Count(dom, `<g class="change" data-index="17">`); n != 1 {
		t.Errorf("%d change marks at apply 18, want 1", n)
	}
	shot := filepath.Join(dir, "history.png")
	headless.Run(t, bin, page, "--screenshot="+shot, "--window-size=900,1000", "--hide-scrollbars")
	if png, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot %s: %v", shot, err)
	} else {
		t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	}
}
