package providertest

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// FakeType is the provider type of the fake back end RegisterFake
// registers: a back end whose "hypervisor" is a map in this process, so
// that a verb (apply, destroy, publish, reproduce) runs in-process in a
// test, through the same public contract the conformance suite checks.
const FakeType = "fake"

var registerFake sync.Once

// RegisterFake registers the fake back end as provider type FakeType
// (once, however often it is called). Its provider block takes an
// optional region; every instance of it shares one map of objects, as
// every connection to a real hypervisor sees the same machines.
func RegisterFake() {
	registerFake.Do(func() {
		providers.Register(FakeType, func() providers.Provider { return &fake{} })
	})
}

// fakeObjects are the objects every fake provider holds, by name.
var fakeObjects = struct {
	sync.Mutex
	m map[string]machine.Instance
}{m: map[string]machine.Instance{}}

// FakeObjects is how many objects of owner the fake back end holds now.
func FakeObjects(owner machine.Owner) int {
	fakeObjects.Lock()
	defer fakeObjects.Unlock()
	n := 0
	for _, in := range fakeObjects.m {
		if owner.Owns(in.Attrs["tag"]) {
			n++
		}
	}
	return n
}

type fake struct {
	cfg struct {
		Region string   `hcl:"region,optional"`
		Remain hcl.Body `hcl:",remain"`
	}
}

func (f *fake) Configure(_ context.Context, body hcl.Body) hcl.Diagnostics {
	return gohcl.DecodeBody(body, nil, &f.cfg)
}

func (f *fake) Capabilities() providers.Capabilities {
	return providers.Capabilities{NICModels: []string{"fastnic"}, GuestOffloads: true, VCPU: true, Memory: true, LinkMTU: true}
}

func (f *fake) TemplateID(_ context.Context, m machine.Machine) (string, error) {
	return fmt.Sprintf("fake image %s/%s", f.cfg.Region, m.Template.Source), nil
}

func (f *fake) Link(ctx context.Context, l providers.LinkSpec) (machine.Instance, error) {
	in := machine.Instance{Address: l.Address, Provider: FakeType, Kind: "link", ID: l.Name, Name: l.Name,
		Attrs: map[string]string{"tag": l.Owner().Tag(l.Address)}}
	return in, f.put(ctx, in)
}

func (f *fake) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	id, _ := f.TemplateID(ctx, m)
	in := machine.Instance{Address: m.Address, Provider: FakeType, Kind: "machine", ID: m.Name, Name: m.Name,
		Attrs:    map[string]string{"tag": m.Owner().Tag(m.Address)},
		Endpoint: &machine.Endpoint{Addr: "198.18.9.1", Iface: "eth0", TemplateID: id}}
	return in, f.put(ctx, in)
}

func (f *fake) put(ctx context.Context, in machine.Instance) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fakeObjects.Lock()
	defer fakeObjects.Unlock()
	fakeObjects.m[in.Name] = in
	return nil
}

func (f *fake) Read(_ context.Context, in machine.Instance) (machine.Instance, bool, error) {
	fakeObjects.Lock()
	defer fakeObjects.Unlock()
	_, ok := fakeObjects.m[in.Name]
	return in, ok, nil
}

func (f *fake) Delete(_ context.Context, in machine.Instance) error {
	fakeObjects.Lock()
	defer fakeObjects.Unlock()
	delete(fakeObjects.m, in.Name)
	return nil
}

func (f *fake) List(_ context.Context, o machine.Owner) ([]machine.Instance, error) {
	fakeObjects.Lock()
	defer fakeObjects.Unlock()
	var out []machine.Instance
	for _, in := range fakeObjects.m {
		if o.Owns(in.Attrs["tag"]) {
			out = append(out, in)
		}
	}
	return out, nil
}

func (f *fake) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("connect %s: %w", in.Address, err)
	}
	return fakeTransport(in.Address), nil
}

func (f *fake) Close(context.Context) error { return nil }

// fakeTransport runs nothing: the stand-in OS and runner never use it.
type fakeTransport string

func (n fakeTransport) Run(context.Context, guest.Cmd) (guest.Result, error) {
	return guest.Result{}, nil
}
func (n fakeTransport) Upload(context.Context, string, io.Reader) error { return nil }
func (n fakeTransport) Name() string                                    { return string(n) }
func (n fakeTransport) Close() error                                    { return nil }

// StandInOS is a guest OS driver for any os name that applies nothing and
// observes what was asked (an operation's test tests the verb, not the
// guest's drivers).
func StandInOS(string) (guest.OS, error) { return standInOS{}, nil }

// StandInRunner is a benchmark runner for any tool that reports a fixed
// measurement (1 Gbit/s) without running anything.
func StandInRunner(string) (bench.Runner, error) { return standInRunner{}, nil }
