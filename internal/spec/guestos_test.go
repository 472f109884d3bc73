package spec

// The guest OSes cmd/lab registers: a template's os must name one.
import _ "github.com/lab-bench/lab/guest/oses"
