package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJUnitValidatesAgainstSchema runs xmllint (Debian's libxml2-utils,
// installed by .ci/run and scripts/install-deps.sh) over lab's JUnit
// output, strict and not, against testdata/junit-lab.xsd: the constraints
// of Jenkins' xunit junit-10.xsd on what lab writes. Without xmllint the
// test fails rather than skips, so that CI cannot pass without validating.
func TestJUnitValidatesAgainstSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatalf("xmllint not found (apt-get install libxml2-utils, or scripts/install-deps.sh): %v", err)
	}
	schema, err := filepath.Abs(filepath.Join("testdata", "junit-lab.xsd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		var buf bytes.Buffer
		if err := WriteJUnit(&buf, info.ID, fakeOutcomes(), strict); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "junit.xml")
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(xmllint, "--noout", "--schema", schema, file).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "validates") {
			t.Errorf("strict=%v: xmllint: %v\n%s\n%s", strict, err, out, buf.Bytes())
		}
	}
}

// TestJUnitSchemaRejectsTheOldOutput: the schema is not vacuous — the
// output lab wrote before (no errors attribute, skipped on <testsuites>)
// fails it.
func TestJUnitSchemaRejectsTheOldOutput(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatalf("xmllint not found (apt-get install libxml2-utils, or scripts/install-deps.sh): %v", err)
	}
	old := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="lab check x" tests="1" failures="0" skipped="1">
  <testsuite name="s" tests="1" failures="0" skipped="1">
    <testcase name="c" classname="e.throughput"><skipped message="m" type="inconclusive">m</skipped></testcase>
  </testsuite>
</testsuites>
`
	file := filepath.Join(t.TempDir(), "old.xml")
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-lab.xsd"), file).CombinedOutput()
	if err == nil {
		t.Fatalf("the old output validates:\n%s", out)
	}
	for _, want := range []string{"skipped", "errors"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("xmllint's complaint does not name %q:\n%s", want, out)
		}
	}
}
