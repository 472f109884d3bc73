package providers

import (
	"context"
	"log/slog"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
)

// LevelTrace is the log level of a back end's step-by-step detail, below
// slog's debug level: LAB_LOG=trace shows it, LAB_LOG=debug does not.
const LevelTrace = slog.LevelDebug - 4

// Traced returns p logging every call to log at debug level (a failed one
// at warn level): the
// provider's key, the method, the resource address, how long it took and
// the error, if any. Transports Connect returns log their commands too
// (guest.Traced). A provider that meters host CPU still does.
func Traced(key string, p Provider, log *slog.Logger) Provider {
	t := &traced{key: key, p: p, log: log}
	if m, ok := p.(HostCPUMeter); ok {
		return &tracedMeter{traced: t, m: m}
	}
	return t
}

type traced struct {
	key string
	p   Provider
	log *slog.Logger
}

// Reaches is the traced provider's (nil when it does not say).
func (t *traced) Reaches() []string {
	if r, ok := t.p.(Reacher); ok {
		return r.Reaches()
	}
	return nil
}

func (t *traced) done(ctx context.Context, method, address string, start time.Time, err error) {
	attrs := []any{"provider", t.key, "call", method, "elapsed", time.Since(start).Round(time.Microsecond)}
	if address != "" {
		attrs = append(attrs, "address", address)
	}
	if err != nil {
		// A failed call is worth a warning (LAB_LOG=warn shows it).
		t.log.WarnContext(ctx, "provider call", append(attrs, "err", err.Error())...)
		return
	}
	t.log.DebugContext(ctx, "provider call", attrs...)
}

func (t *traced) Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics {
	start := time.Now()
	d := t.p.Configure(ctx, body)
	var err error
	if d.HasErrors() {
		err = d
	}
	t.done(ctx, "Configure", "", start, err)
	return d
}

func (t *traced) Capabilities() Capabilities { return t.p.Capabilities() }

func (t *traced) TemplateID(ctx context.Context, m machine.Machine) (string, error) {
	start := time.Now()
	id, err := t.p.TemplateID(ctx, m)
	t.done(ctx, "TemplateID", m.Address, start, err)
	return id, err
}

func (t *traced) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	start := time.Now()
	tr, err := t.p.Connect(ctx, in)
	t.done(ctx, "Connect", in.Address, start, err)
	if err != nil {
		return nil, err
	}
	return guest.Traced(tr, t.log), nil
}

func (t *traced) Close(ctx context.Context) error {
	start := time.Now()
	err := t.p.Close(ctx)
	t.done(ctx, "Close", "", start, err)
	return err
}

func (t *traced) Link(ctx context.Context, l LinkSpec) (machine.Instance, error) {
	start := time.Now()
	in, err := t.p.Link(ctx, l)
	t.done(ctx, "Link", l.Address, start, err)
	return in, err
}

func (t *traced) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	start := time.Now()
	in, err := t.p.Create(ctx, m)
	t.done(ctx, "Create", m.Address, start, err)
	return in, err
}

func (t *traced) Read(ctx context.Context, in machine.Instance) (machine.Instance, bool, error) {
	start := time.Now()
	out, ok, err := t.p.Read(ctx, in)
	t.done(ctx, "Read", in.Address, start, err)
	return out, ok, err
}

func (t *traced) Delete(ctx context.Context, in machine.Instance) error {
	start := time.Now()
	err := t.p.Delete(ctx, in)
	t.done(ctx, "Delete", in.Address, start, err)
	return err
}

func (t *traced) List(ctx context.Context, o machine.Owner) ([]machine.Instance, error) {
	start := time.Now()
	out, err := t.p.List(ctx, o)
	t.done(ctx, "List", o.Lab+"/"+o.Workspace, start, err)
	return out, err
}

type tracedMeter struct {
	*traced
	m HostCPUMeter
}

func (t *tracedMeter) MeterCPU(ctx context.Context, in machine.Instance) (func(context.Context) (machine.HostCPU, error), error) {
	start := time.Now()
	stop, err := t.m.MeterCPU(ctx, in)
	t.done(ctx, "MeterCPU", in.Address, start, err)
	return stop, err
}
