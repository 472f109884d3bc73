package importrules

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// lines prefixes each line of text "doc.md:N: ", as readPicture does.
func lines(text string) []string {
	var out []string
	for i, l := range strings.Split(strings.Trim(text, "\n"), "\n") {
		out = append(out, "doc.md:"+strconv.Itoa(i+1)+": "+l)
	}
	return out
}

// TestParsePicture: the rows, the entries' forms, and every malformed
// picture refused at its line.
func TestParsePicture(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       picture
		err        string
	}{
		{name: "rows, notes and placeholders", text: `
2  cmd/lab   providers/providertest
1  providers/<back end>   bench/tools
0  providers (the contract)   bench`,
			want: picture{
				exact: map[string]int{"cmd/lab": 2, "providers/providertest": 2, "bench/tools": 1, "providers": 0, "bench": 0},
				below: map[string]int{"providers": 1},
			}},
		{name: "rows numbered from the top", text: "0  a\n1  b", err: "doc.md:1: row 0 where 1 belongs"},
		{name: "a row without its number", text: "1  a\n   b", err: "doc.md:2: want a row number"},
		{name: "one space between entries", text: "0  a b", err: `"a b" is neither`},
		{name: "a pattern the picture does not know", text: "0  guest/*", err: `"guest/*" is neither`},
		{name: "a package twice", text: "1  a\n0  a", err: `doc.md:2: "a" is in row 1 already`},
		{name: "a placeholder twice", text: "1  a/<x>\n0  a/<y>", err: `doc.md:2: "a/<y>" is in row 1 already`},
		{name: "empty", text: "", err: "want a row number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePicture(lines(tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestCheckLayers plants each kind of disagreement between a picture and
// the code and wants it named.
func TestCheckLayers(t *testing.T) {
	pic, err := parsePicture(lines(`
2  cmd/lab
1  providers/<back end>   x/<a>   x/y/<b>
0  providers`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pkgs map[string]pkg
		want []string
	}{
		{name: "agree", pkgs: map[string]pkg{
			"cmd/lab":             {Imports: []string{"providers/local", "providers"}},
			"providers/local":     {Imports: []string{"providers"}},
			"providers/local/sub": {Imports: []string{"providers/local", "providers"}},
			"providers":           {},
		}},
		{name: "an import of a higher row", pkgs: map[string]pkg{
			"providers": {Imports: []string{"providers/local"}}, "providers/local": {},
		}, want: []string{"providers (row 0) imports providers/local (row 1): a package imports only lower rows and its parent directory's package"}},
		{name: "an import of the same row", pkgs: map[string]pkg{
			"providers/a": {Imports: []string{"providers/b"}}, "providers/b": {},
		}, want: []string{"providers/a (row 1) imports providers/b (row 1): a package imports only lower rows and its parent directory's package"}},
		{name: "a package without a row", pkgs: map[string]pkg{"internal/new": {}},
			want: []string{"internal/new has no row in ARCHITECTURE.md's picture: add it there"}},
		{name: "a package under two placeholders", pkgs: map[string]pkg{"x/y/z": {}},
			want: []string{"x/y/z is below both x/<…> and x/y/<…>: name it in its row"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkLayers(pic, tc.pkgs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("checkLayers:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestDocumentRows pins how ARCHITECTURE.md's picture places a few
// packages, so that the reading of the document is seen to work.
func TestDocumentRows(t *testing.T) {
	pic, err := readPicture(architecture)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]int{
		"machine": 0, "guest": 0, "guest/linux": 1, "guest/ssh/sshtest": 1, "bench/iperf3": 1,
		"bench/tools": 2, "providers": 3, "internal/results": 3, "internal/verdicts": 4, "providers/libvirt": 5, "providers/vsphere/vspheretest": 5,
		"providers/providertest": 9, "bench/benchtest": 9, "cmd/lab": 9, "internal/operation": 7, "internal/engine": 6,
	} {
		if got, err := pic.row(p); err != nil || got != want {
			t.Errorf("row(%s) = %d, %v; want %d", p, got, err, want)
		}
	}
	if _, err := pic.row("internal/new"); err == nil {
		t.Error("row(internal/new): no error, want one: it has no row")
	}
}
