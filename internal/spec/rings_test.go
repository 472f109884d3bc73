package spec

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestRingSettings: rx_ring and tx_ring reach both ends from guest {},
// a server {} or client {} value wins for its end, and a matrix key may
// drive them.
func TestRingSettings(t *testing.T) {
	src := []byte(`
lab "rings" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { ring = [256, 4096] }
  guest {
    rx_ring = matrix.ring
    tx_ring = 512
  }
  client {
    tx_ring = 1024
  }
  iperf3 {}
}
`)
	l, diags := LoadFiles("", map[string][]byte{"rings.hcl": src}, Options{})
	if diags.HasErrors() {
		t.Fatal(writeDiags(t, l, diags))
	}
	for _, tt := range []struct {
		ring                       int64
		srvRX, srvTX, cliRX, cliTX int
	}{
		{256, 256, 512, 256, 1024},
		{4096, 4096, 512, 4096, 1024},
	} {
		c, diags := l.Experiments[0].Eval(map[string]cty.Value{"ring": cty.NumberIntVal(tt.ring)})
		if diags.HasErrors() {
			t.Fatal(writeDiags(t, l, diags))
		}
		if c.Server.RxRing != tt.srvRX || c.Server.TxRing != tt.srvTX || c.Client.RxRing != tt.cliRX || c.Client.TxRing != tt.cliTX {
			t.Errorf("ring %d: server %d/%d client %d/%d, want %d/%d %d/%d", tt.ring,
				c.Server.RxRing, c.Server.TxRing, c.Client.RxRing, c.Client.TxRing, tt.srvRX, tt.srvTX, tt.cliRX, tt.cliTX)
		}
	}
}
