package state

import (
	"encoding/json"
	"time"

	"github.com/lab-bench/lab/internal/machinejson"
)

// resourceJSON is a Resource in the state file (and wherever else a
// resource is written: `lab state show -json`, a saved plan's replaced
// objects). The instance's keys come first, as when Resource embedded
// the provider's type; TestStateFileFormat pins the bytes.
type resourceJSON struct {
	machinejson.Instance
	ProviderKey string    `json:"provider_key"`
	Status      string    `json:"status"`
	Shape       string    `json:"shape,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

// MarshalJSON writes r in the state file's encoding.
func (r Resource) MarshalJSON() ([]byte, error) {
	return json.Marshal(resourceJSON{Instance: machinejson.FromInstance(r.Instance),
		ProviderKey: r.ProviderKey, Status: r.Status, Shape: r.Shape, CreatedAt: r.CreatedAt})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Resource) UnmarshalJSON(b []byte) error {
	var in resourceJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Resource{Instance: in.Instance.Machine(), ProviderKey: in.ProviderKey, Status: in.Status, Shape: in.Shape, CreatedAt: in.CreatedAt}
	return nil
}
