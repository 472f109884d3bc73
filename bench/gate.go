package bench

import "context"

// startGateKey is the context key of a run's start gate.
type startGateKey struct{}

// WithStartGate returns a context whose runs wait at gate just before
// their client starts (AwaitStart): an engine running several flows at the
// same moment (a concurrent experiment) gives each flow's run a gate that
// opens once every flow's server listens, so that the clients start
// together. gate returns an error when it will not open (ctx done).
func WithStartGate(ctx context.Context, gate func(context.Context) error) context.Context {
	return context.WithValue(ctx, startGateKey{}, gate)
}

// AwaitStart waits at ctx's start gate, if it has one (WithStartGate); a
// runner calls it once, when its server listens and right before it starts
// its client.
func AwaitStart(ctx context.Context) error {
	if gate, ok := ctx.Value(startGateKey{}).(func(context.Context) error); ok {
		return gate(ctx)
	}
	return nil
}

// StartGater is a Runner that calls AwaitStart before its client starts.
// For a runner that is not one, the engine waits at the gate itself before
// calling Run, so its flows still start together, their servers' start-up
// included in the skew.
type StartGater interface {
	Runner
	// GatesStart reports that Run calls AwaitStart (always true).
	GatesStart() bool
}
