package spec

// cellExprs is filled in by the decoder (placeholder until it lands).
type cellExprs struct{}
