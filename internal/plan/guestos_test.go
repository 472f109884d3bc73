package plan

// The guest OSes cmd/lab registers, for code under test that asks
// guest.For about a template's os.
import _ "github.com/lab-bench/lab/guest/oses"
