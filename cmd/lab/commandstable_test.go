package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCommandsTable keeps docs/commands.md's table of verbs true to the
// code: a row for every verb (help aside: `lab help help` prints lab's
// usage), each row's command cell the synopsis the verb's -h prints
// ("Usage: lab …", the newFlags table), `|` escaped for Markdown.
func TestCommandsTable(t *testing.T) {
	page, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `(lab ([a-z]+)(?: (list|show|rm)\\b)?(?:[^`])*)` \\|")
	seen := map[string]bool{}
	for _, r := range row.FindAllStringSubmatch(string(page), -1) {
		verb, cell := r[2], strings.ReplaceAll(r[1], `\|`, "|")
		seen[verb] = true
		if verb == "help" {
			continue
		}
		args := []string{"help", verb}
		if r[3] != "" {
			args = append(args, r[3])
		}
		var out, errOut bytes.Buffer
		Main(args, nil, &out, &errOut, nil)
		synopsis, _, _ := strings.Cut(out.String()+errOut.String(), "\n")
		if want := strings.TrimPrefix(synopsis, "Usage: "); cell != want {
			t.Errorf("docs/commands.md row\n\t%s\nlab %s -h says\n\t%s", cell, strings.Join(args[1:], " "), want)
		}
	}
	for _, v := range verbNames() {
		if !seen[v] {
			t.Errorf("docs/commands.md has no row for lab %s", v)
		}
	}
}
