package providertest

// The suite loads specs whose templates name an os, as cmd/lab does: it
// registers the guest OSes cmd/lab registers (every one, through
// guest/oses), so that a back end's test (in this tree or outside it)
// needs no import of its own for them.
import _ "github.com/lab-bench/lab/guest/oses"
