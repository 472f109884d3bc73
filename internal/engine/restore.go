package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
)

// Borrowed machines (providers.Capabilities.Borrowed: the hosts back end,
// bare metal, long-lived VMs) exist before lab and outlive it. For a
// borrowed machine the engine, before it configures the machine for the
// first time, observes the current value of everything any run of the
// group will change — MTU, ring sizes, each offload named, congestion
// control, each sysctl key — and records it in state (attribute RestoreAttr). At
// teardown, before the provider's Delete, it applies those values again
// and verifies them by observation. A failed restore leaves the machine in
// state (tainted) so that `lab destroy` tries again; it does not stop the
// teardown of other machines.
//
// Emulated loss is restored to "none": lab's own rules are removed. Loss
// rules the machine had before (a netem root qdisc) cannot be recreated and
// are reported as a warning when the snapshot is taken.

// RestoreAttr is the state attribute holding a borrowed machine's
// settings from before lab changed them (JSON, a Restore).
const RestoreAttr = "restore"

// Event types of restores.
const (
	EvSnapshot = "snapshot" // a borrowed machine's settings were recorded
	EvRestore  = "restore"  // … and put back (Message says what)
)

// Restore is what a borrowed machine's settings were before lab touched
// them, with what is needed to put them back without the spec.
type Restore struct {
	OS       string         `json:"os"`
	Iface    string         `json:"iface"`
	Settings guest.Settings `json:"settings"`
	// Second is a borrowed router's interface towards the client, whose
	// MTU and offloads a routed pair changes too (configureRouter).
	Second   *Interface `json:"second,omitempty"`
	Warnings []string   `json:"warnings,omitempty"`
}

// Interface is one more interface's settings from before lab changed them.
type Interface struct {
	Iface    string         `json:"iface"`
	Settings guest.Settings `json:"settings"`
}

func borrowed(prov providers.Provider) bool { return prov.Capabilities().Borrowed }

// snapshotBorrowed records both ends' current settings before the group's
// first run when the provider's machines are borrowed. A record already in
// state (from an earlier apply with -keep) wins: it holds the values from
// before lab's first change.
//
// Each end is asked of its own provider: one end of a cross pair may be
// borrowed and the other made by lab.
func (e *Engine) snapshotBorrowed(ctx context.Context, g *plan.Group, server, client end, router *end) error {
	type side struct {
		end  end
		os   string
		spec func(plan.Run) guest.Settings
	}
	sides := []side{
		{server, g.Server.Template.OS, func(r plan.Run) guest.Settings { return r.Spec.Server }},
		{client, g.Client.Template.OS, func(r plan.Run) guest.Settings { return r.Spec.Client }},
	}
	if router != nil {
		sides = append(sides, side{*router, g.Router.Template.OS, func(r plan.Run) guest.Settings { return r.Spec.Router }})
	}
	for _, side := range sides {
		if !borrowed(side.end.prov) {
			continue
		}
		var all []guest.Settings
		for _, r := range g.Runs {
			all = append(all, side.spec(r))
		}
		if err := e.snapshot(ctx, side.end, side.os, Touched(all)); err != nil {
			return fmt.Errorf("record the settings of %s before changing them: %w", side.end.in.Address, err)
		}
	}
	return nil
}

func (e *Engine) snapshot(ctx context.Context, side end, osName string, touch guest.Settings) error {
	iface := side.ep().Iface
	// Observe the namespace-wide algorithm, not the per-socket fallback,
	// and do not ask for a loss rule.
	ask := touch
	ask.CongestionControl, ask.Loss = "", nil
	obs, err := side.os.Observe(ctx, side.t, iface, ask)
	if err != nil {
		return err
	}
	rec := Restore{OS: osName, Iface: iface, Settings: SnapshotOf(touch, obs)}
	if obs.Loss != "" && touch.Loss != nil {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("loss rules present before lab (%s) are replaced and not restored", obs.Loss))
	}
	if iface2 := side.ep().Iface2; iface2 != "" {
		// A router's second interface takes the link-level settings.
		touch2 := guest.Settings{MTU: touch.MTU, Offloads: touch.Offloads}
		obs2, err := side.os.Observe(ctx, side.t, iface2, touch2)
		if err != nil {
			return err
		}
		rec.Second = &Interface{Iface: iface2, Settings: SnapshotOf(touch2, obs2)}
	}
	e.mu.Lock()
	r, ok := e.State.Find(side.in.Address)
	var res state.Resource
	if ok {
		res = *r
	}
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s is not in state", side.in.Address)
	}
	if old, err := parseRestore(res.Attrs[RestoreAttr]); err == nil && old != nil {
		rec.Settings = mergeSettings(old.Settings, rec.Settings)
		rec.Warnings = append(old.Warnings, rec.Warnings...)
		if old.Second != nil && rec.Second != nil {
			rec.Second.Settings = mergeSettings(old.Second.Settings, rec.Second.Settings)
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	attrs := map[string]string{}
	for k, v := range res.Attrs {
		attrs[k] = v
	}
	attrs[RestoreAttr] = string(b)
	res.Attrs = attrs
	if err := e.put(res); err != nil {
		return err
	}
	for _, w := range rec.Warnings {
		e.emit(Event{Type: EvWarning, Address: side.in.Address, Message: w})
	}
	e.emit(Event{Type: EvSnapshot, Address: side.in.Address, Message: describe(rec.Settings)})
	return nil
}

// restoreBorrowed puts a borrowed machine's recorded settings back and
// verifies them. Machines without a record (not borrowed, or never
// configured) need nothing.
func (e *Engine) restoreBorrowed(ctx context.Context, prov providers.Provider, r state.Resource) error {
	if r.Kind != "machine" || !borrowed(prov) {
		return nil
	}
	rec, err := parseRestore(r.Attrs[RestoreAttr])
	if err != nil || rec == nil {
		return err
	}
	if e.OS == nil {
		return fmt.Errorf("restore %s: no guest OS drivers configured", r.Address)
	}
	drv, err := e.OS(rec.OS)
	if err != nil {
		return fmt.Errorf("restore %s: %w", r.Address, err)
	}
	if e.Abandon[r.Address] {
		e.emit(Event{Type: EvWarning, Address: r.Address, Message: fmt.Sprintf(
			"let go without restoring its settings (-abandon): put them back by hand on %s (%s): %s", r.Name, rec.Iface, describe(rec.Settings))})
		return nil
	}
	t, err := prov.Connect(ctx, r.Instance)
	if err != nil {
		if e.AbandonCommand != nil {
			return fmt.Errorf("restore %s: connect: %w. To let it go without logging in (you then put back %s on %s by hand), run `%s`",
				r.Address, err, describe(rec.Settings), rec.Iface, e.AbandonCommand(r.Address))
		}
		return fmt.Errorf("restore %s: connect: %w", r.Address, err)
	}
	defer t.Close()
	ifaces := []Interface{{rec.Iface, rec.Settings}}
	if rec.Second != nil {
		ifaces = append(ifaces, *rec.Second)
	}
	for _, i := range ifaces {
		if err := restoreIface(ctx, drv, t, i); err != nil {
			return fmt.Errorf("restore %s: %w", r.Address, err)
		}
	}
	e.emit(Event{Type: EvRestore, Address: r.Address, Message: describe(rec.Settings)})
	return nil
}

// restoreIface applies an interface's recorded settings and verifies them.
func restoreIface(ctx context.Context, drv guest.OS, t guest.Transport, i Interface) error {
	if err := drv.Apply(ctx, t, i.Iface, i.Settings); err != nil {
		return err
	}
	obs, err := drv.Observe(ctx, t, i.Iface, i.Settings)
	if err != nil {
		return fmt.Errorf("observe: %w", err)
	}
	if problems := guest.Verify(i.Settings, obs); len(problems) > 0 {
		return fmt.Errorf("settings did not return to their previous values: %s", strings.Join(problems, "; "))
	}
	return nil
}

func parseRestore(s string) (*Restore, error) {
	if s == "" {
		return nil, nil
	}
	var rec Restore
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return nil, fmt.Errorf("state attribute %s: %w", RestoreAttr, err)
	}
	return &rec, nil
}

// Touched is the union of what a list of settings changes: the MTU when
// any sets one, each ring size any sets, every offload named, congestion control when any sets it,
// every sysctl key, and loss when any asks for it. Values are the first
// seen (only the keys matter).
func Touched(all []guest.Settings) guest.Settings {
	var u guest.Settings
	for _, s := range all {
		if u.MTU == 0 {
			u.MTU = s.MTU
		}
		if u.RxRing == 0 {
			u.RxRing = s.RxRing
		}
		if u.TxRing == 0 {
			u.TxRing = s.TxRing
		}
		for k, v := range s.Offloads {
			if u.Offloads == nil {
				u.Offloads = map[string]bool{}
			}
			u.Offloads[k] = v
		}
		if u.CongestionControl == "" {
			u.CongestionControl = s.CongestionControl
		}
		for k, v := range s.Sysctl {
			if u.Sysctl == nil {
				u.Sysctl = map[string]string{}
			}
			if _, ok := u.Sysctl[k]; !ok {
				u.Sysctl[k] = v
			}
		}
		if u.Loss == nil && s.Loss != nil {
			l := *s.Loss
			u.Loss = &l
		}
	}
	return u
}

// SnapshotOf turns what was observed into the settings that put back each
// value touch changes. Offloads the device cannot change ("[fixed]") are
// left out; loss is restored to none (a nil Loss removes lab's rules).
func SnapshotOf(touch guest.Settings, o guest.Observed) guest.Settings {
	s := guest.Settings{Strict: true}
	if touch.MTU > 0 {
		s.MTU = o.MTU
	}
	if o.Rings != nil {
		if touch.RxRing > 0 {
			s.RxRing = o.Rings.RX
		}
		if touch.TxRing > 0 {
			s.TxRing = o.Rings.TX
		}
	}
	for name := range touch.Offloads {
		state := o.Offloads[name]
		if strings.Contains(state, "[fixed]") {
			continue
		}
		if f := strings.Fields(state); len(f) > 0 && (f[0] == "on" || f[0] == "off") {
			if s.Offloads == nil {
				s.Offloads = map[string]bool{}
			}
			s.Offloads[name] = f[0] == "on"
		}
	}
	if touch.CongestionControl != "" {
		s.CongestionControl = o.CongestionControl
	}
	for k := range touch.Sysctl {
		if v, ok := o.Sysctl[k]; ok {
			if s.Sysctl == nil {
				s.Sysctl = map[string]string{}
			}
			s.Sysctl[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return s
}

// mergeSettings keeps every value of old and adds what only add has.
func mergeSettings(old, add guest.Settings) guest.Settings {
	out := old
	if out.MTU == 0 {
		out.MTU = add.MTU
	}
	if out.CongestionControl == "" {
		out.CongestionControl = add.CongestionControl
	}
	if out.RxRing == 0 {
		out.RxRing = add.RxRing
	}
	if out.TxRing == 0 {
		out.TxRing = add.TxRing
	}
	out.Offloads = mergeMap(old.Offloads, add.Offloads)
	out.Sysctl = mergeMap(old.Sysctl, add.Sysctl)
	return out
}

func mergeMap[V any](old, add map[string]V) map[string]V {
	if len(add) == 0 {
		return old
	}
	out := map[string]V{}
	for k, v := range add {
		out[k] = v
	}
	for k, v := range old {
		out[k] = v
	}
	return out
}

// describe renders settings for an event ("mtu=1500 gro=on cc=bbr").
func describe(s guest.Settings) string {
	var parts []string
	if s.MTU > 0 {
		parts = append(parts, fmt.Sprintf("mtu=%d", s.MTU))
	}
	if s.RxRing > 0 {
		parts = append(parts, fmt.Sprintf("rx_ring=%d", s.RxRing))
	}
	if s.TxRing > 0 {
		parts = append(parts, fmt.Sprintf("tx_ring=%d", s.TxRing))
	}
	for _, k := range guest.SortedKeys(s.Offloads) {
		parts = append(parts, k+"="+map[bool]string{true: "on", false: "off"}[s.Offloads[k]])
	}
	if s.CongestionControl != "" {
		parts = append(parts, "congestion_control="+s.CongestionControl)
	}
	for _, k := range guest.SortedKeys(s.Sysctl) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, s.Sysctl[k]))
	}
	if len(parts) == 0 {
		return "nothing to restore"
	}
	return strings.Join(parts, " ")
}
