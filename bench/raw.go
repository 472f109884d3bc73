package bench

import (
	"bytes"
	"encoding/json"
)

// rawFields is Raw without its methods, for the encoding below.
type rawFields Raw

// MarshalJSON writes Raw with each output that is itself a JSON object or
// array (iperf3 -J) embedded as JSON rather than as an escaped string, so
// that a record can be read and queried (jq .raw.client.end) as it is.
// Other output (iperf 2, netperf text) stays a string.
func (r Raw) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		rawFields
		Client json.RawMessage `json:"client"`
		Server json.RawMessage `json:"server,omitempty"`
	}{rawFields(r), embed(r.Client), embed(r.Server)})
}

// UnmarshalJSON reads what MarshalJSON writes and records written before
// it (schema 1), whose outputs are always strings. An embedded output
// comes back as its JSON text (whitespace aside, the tool's own).
func (r *Raw) UnmarshalJSON(data []byte) error {
	var aux struct {
		rawFields
		Client json.RawMessage `json:"client"`
		Server json.RawMessage `json:"server"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*r = Raw(aux.rawFields)
	var err error
	if r.Client, err = unembed(aux.Client); err != nil {
		return err
	}
	r.Server, err = unembed(aux.Server)
	return err
}

// embed is s as a JSON value: itself when it is a JSON object or array,
// else a JSON string (nil for ""; Server is then omitted).
func embed(s string) json.RawMessage {
	t := bytes.TrimSpace([]byte(s))
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		return t
	}
	if s == "" {
		return nil
	}
	b, _ := json.Marshal(s)
	return b
}

// unembed turns a JSON value written by embed back into text.
func unembed(m json.RawMessage) (string, error) {
	m = bytes.TrimSpace(m)
	if len(m) == 0 || string(m) == "null" {
		return "", nil
	}
	if m[0] == '"' {
		var s string
		err := json.Unmarshal(m, &s)
		return s, err
	}
	return string(m), nil
}
