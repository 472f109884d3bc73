package providers

import "context"

type offlineKey struct{}

// WithOffline returns ctx marked offline: the provider blocks are being
// checked (`lab validate`) and nothing will be created, so Configure must
// not require what only a real session needs — an endpoint or credentials
// from the environment. What the block says is still checked.
func WithOffline(ctx context.Context) context.Context {
	return context.WithValue(ctx, offlineKey{}, true)
}

// Offline reports whether ctx was marked by WithOffline. A Configure that
// finds a missing endpoint or credential treats it as no error when so.
func Offline(ctx context.Context) bool {
	off, _ := ctx.Value(offlineKey{}).(bool)
	return off
}
