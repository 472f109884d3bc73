package report

import (
	"strings"
	"testing"
)

func TestOutputFormat(t *testing.T) {
	tests := []struct {
		format, out, want string
		err               string // in the error; "" = none
	}{
		{"", "", "table", ""},
		{"svg", "", "svg", ""},
		{"", "report", "table", ""},
		{"", "r.txt", "table", ""},
		{"", "r.htm", "html", ""},
		{"", "r.html", "html", ""},
		{"", "R.HTM", "html", ""},
		{"", "r.md", "markdown", ""},
		{"", "r.markdown", "markdown", ""},
		{"", "r.csv", "csv", ""},
		{"", "r.json", "json", ""},
		{"", "r.svg", "svg", ""},
		{"", "r.png", "png", ""},
		{"csv-runs", "r.csv", "csv-runs", ""},
		{"timeseries", "t.svg", "timeseries", ""},
		{"timeseries-png", "t.png", "timeseries-png", ""},
		{"json", "r.txt", "json", ""},
		{"html", "r.log", "html", ""},
		{"", "r.pdf", "", "-o r.pdf: lab does not know"},
		{"csv", "r.html", "", "-o r.html: a .html file does not hold the csv format"},
		{"table", "r.png", "", "(png, timeseries-png)"},
		{"nope", "", "", `unknown report format "nope"`},
	}
	for _, tc := range tests {
		got, err := OutputFormat(tc.format, tc.out)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("OutputFormat(%q, %q) = %q, %v; want %q, error with %q", tc.format, tc.out, got, err, tc.want, tc.err)
		}
	}
}

func TestBinary(t *testing.T) {
	for f, want := range map[string]bool{"png": true, "timeseries-png": true, "svg": false, "timeseries": false, "table": false, "html": false} {
		if Binary(f) != want {
			t.Errorf("Binary(%q) = %t", f, !want)
		}
	}
}
