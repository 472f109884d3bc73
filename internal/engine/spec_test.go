package engine

import (
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/spec"
)

func specWithMTU(mtu int) spec.CellSpec {
	s := guest.Settings{MTU: mtu, Strict: true}
	return spec.CellSpec{Server: s, Client: s, Bench: bench.Params{Tool: "iperf3", Duration: time.Second}}
}
