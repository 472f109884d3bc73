package importrules

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// architecture is the document whose picture TestLayers checks.
const architecture = "../../docs/ARCHITECTURE.md"

// picture is the layer picture of ARCHITECTURE.md's "Dependencies": the
// first fenced block after that heading. Each line is a row number, then
// the row's entries, each two or more spaces from the next:
//
//	2  bench/tools   guest/oses
//	1  guest/<os>   bench   providers (the contract)
//
// An entry is a package path, or a directory and a <placeholder> that
// stands for every package below the directory (its children and their
// subpackages); a note in parentheses after it is for the reader. A
// package named by an entry of its own is placed in that entry's row;
// any other takes the row of the one placeholder that covers it.
type picture struct {
	exact map[string]int // package → row
	below map[string]int // directory of a placeholder → row
}

var (
	rowLine   = regexp.MustCompile(`^(\d+) {2,}(\S.*)$`)
	entrySep  = regexp.MustCompile(` {2,}`)
	entryForm = regexp.MustCompile(`^([a-z0-9_.-]+(?:/[a-z0-9_.-]+)*)(/<[a-z ]+>)?(?: \([^()]+\))?$`)
)

// readPicture parses the picture of the document at file.
func readPicture(file string) (picture, error) {
	f, err := os.Open(file)
	if err != nil {
		return picture{}, err
	}
	defer f.Close()
	var block []string
	state := 0 // 0: before the heading, 1: before the fence, 2: in the block, 3: done
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan() && state < 3; n++ {
		line := sc.Text()
		switch {
		case state == 0 && line == "## Dependencies":
			state = 1
		case state == 1 && strings.HasPrefix(line, "```"):
			state = 2
		case state == 2 && strings.HasPrefix(line, "```"):
			state = 3
		case state == 2:
			block = append(block, fmt.Sprintf("%s:%d: %s", file, n, line))
		}
	}
	if err := sc.Err(); err != nil {
		return picture{}, err
	}
	if state != 3 {
		return picture{}, fmt.Errorf("%s: no fenced block after \"## Dependencies\"", file)
	}
	return parsePicture(block)
}

// parsePicture reads the lines of the picture, each prefixed
// "file:line: " (for the errors), top row first.
func parsePicture(lines []string) (picture, error) {
	pic := picture{exact: map[string]int{}, below: map[string]int{}}
	for i, l := range lines {
		where, line, _ := strings.Cut(l, ": ")
		m := rowLine.FindStringSubmatch(line)
		if m == nil {
			return picture{}, fmt.Errorf("%s: want a row number, two spaces and the row's packages, have %q", where, line)
		}
		if n, _ := strconv.Atoi(m[1]); n != len(lines)-1-i {
			return picture{}, fmt.Errorf("%s: row %s where %d belongs: rows are numbered from the bottom, 0 last", where, m[1], len(lines)-1-i)
		}
		for _, e := range entrySep.Split(strings.TrimSpace(m[2]), -1) {
			if err := pic.add(e, len(lines)-1-i); err != nil {
				return picture{}, fmt.Errorf("%s: %w", where, err)
			}
		}
	}
	if len(pic.exact) == 0 {
		return picture{}, fmt.Errorf("the picture has no rows")
	}
	return pic, nil
}

func (pic picture) add(entry string, row int) error {
	m := entryForm.FindStringSubmatch(entry)
	if m == nil {
		return fmt.Errorf("%q is neither a package path nor dir/<placeholder>, with an optional (note)", entry)
	}
	into := pic.exact
	if m[2] != "" {
		into = pic.below
	}
	if r, dup := into[m[1]]; dup {
		return fmt.Errorf("%q is in row %d already", entry, r)
	}
	into[m[1]] = row
	return nil
}

// row is p's row, counted from the bottom (0: leaves); an error when no
// entry, or more than one placeholder, places it.
func (pic picture) row(p string) (int, error) {
	if r, ok := pic.exact[p]; ok {
		return r, nil
	}
	found, r := "", -1
	for dir, dr := range pic.below {
		if !strings.HasPrefix(p, dir+"/") {
			continue
		}
		if found != "" {
			a, b := min(found, dir), max(found, dir)
			return -1, fmt.Errorf("%s is below both %s/<…> and %s/<…>: name it in its row", p, a, b)
		}
		found, r = dir, dr
	}
	if found == "" {
		return -1, fmt.Errorf("%s has no row in %s's picture: add it there", p, path.Base(architecture))
	}
	return r, nil
}
