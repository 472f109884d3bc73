package state

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecode feeds the state decoder arbitrary bytes: it never panics,
// what it accepts is valid (no negative serial, no unknown status), and a state it accepts encodes and decodes back to the same encoding.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version":1,"lineage":"l","serial":3,"resources":[]}`))
	f.Add([]byte(`{"version":1,"lineage":"l","serial":1,"resources":[{"address":"pair.p.server","kind":"machine","attrs":{"ns":"lab-x"}}]}`))
	f.Add([]byte(`{"version":2,"lineage":"l","serial":1,"resources":[{"address":"pair.p.server","kind":"machine","status":"created"}]}`))
	f.Add([]byte(`{"version":2,"lineage":"l","serial":-5,"resources":[{"address":"pair.p.server","kind":"machine","status":"exploded"}]}`))
	f.Add([]byte(`{"version":99}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decode("state.json", data)
		if err != nil {
			return
		}
		if s.Version < 1 || s.Version > Version || s.Lineage == "" {
			t.Fatalf("accepted version %d lineage %q", s.Version, s.Lineage)
		}
		if err := s.validate(); err != nil {
			t.Fatalf("accepted an invalid state: %v", err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("accepted state does not encode: %v", err)
		}
		back, err := decode("state.json", b)
		if err != nil {
			t.Fatalf("encoded state does not decode: %v\n%s", err, b)
		}
		if b2, _ := json.Marshal(back); !bytes.Equal(b, b2) {
			t.Fatalf("round trip:\n%s\n%s", b, b2)
		}
	})
}
