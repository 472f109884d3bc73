package providers

import (
	"context"

	"github.com/hashicorp/hcl/v2"
)

type evalKey struct{}

// WithEvalContext returns ctx carrying the spec's evaluation context
// (var.*), for Configure to evaluate expressions in a provider block
// (`address = var.server`).
func WithEvalContext(ctx context.Context, ec *hcl.EvalContext) context.Context {
	return context.WithValue(ctx, evalKey{}, ec)
}

// EvalContext is the evaluation context ctx carries, nil when none.
func EvalContext(ctx context.Context) *hcl.EvalContext {
	ec, _ := ctx.Value(evalKey{}).(*hcl.EvalContext)
	return ec
}
