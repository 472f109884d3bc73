package spec

import (
	"reflect"

	"github.com/hashicorp/hcl/v2"
)

// DesignDuet is the experiment design that runs its two matrix cells at
// the same moment on two pairs (design = "duet"; Bulej et al., ICPE 2020).
const DesignDuet = "duet"

// duetSchema is the experiment attribute that chooses a design other than
// the blocks its order lays out (kept apart from experimentSchema's list
// so that the attribute and its rules read together).
var duetSchema = []hcl.AttributeSchema{{Name: "design"}}

// decodeDesign reads design = "duet": each repeat runs the matrix's first
// cell on one pair and its second on the other, their clients started
// together (as concurrent = true starts flows), and every second repeat
// swaps which pair carries which cell, so a difference between the pairs
// cancels within each two repeats (plan: duetOrder). It needs exactly two
// pairs equal in everything a pair sets (template, via, vcpu, memory,
// nic, link MTU: what differs must be the cells), exactly two cells, and
// an even fixed repeat of 4 or more (two swaps at least: the shape's t
// interval is over swap pairs). The design fixes the order and runs the
// flows together, so order, concurrent and budget are refused with it,
// and so are adaptive repeats (a cell cannot stop while the other runs).
// Call after pairs, matrix, repeat, order, budget and concurrent.
func (l *loader) decodeDesign(e *Experiment, attrs hcl.Attributes) hcl.Diagnostics {
	a := attrs["design"]
	if a == nil {
		return nil
	}
	s, diags := l.evalString(a)
	if diags.HasErrors() {
		return diags
	}
	if s != DesignDuet {
		return append(diags, errorf(a.Expr.Range(), "Invalid design",
			"design is %q (two cells at once on two pairs), or left out for the blocks order lays out; not %q.", DesignDuet, truncate(s, 40)))
	}
	at := declaredAt(a.Range)
	for _, name := range []string{"order", "concurrent", "budget"} {
		if o := attrs[name]; o != nil {
			diags = append(diags, errorf(o.Range, "Duet with "+name,
				"design = \"duet\" (at %s) fixes the run order (the two cells at once, the pairs swapped every second repeat) and runs the flows together: remove %s.", at, name))
		}
	}
	if len(e.Pairs) != 2 {
		diags = append(diags, errorf(rangeOr(attrs["pairs"], a), "A duet needs two pairs",
			"design = \"duet\" (at %s) runs one cell on each of two pairs at once; pairs lists %d. List exactly two pairs that differ only in their names.", at, len(e.Pairs)))
	} else if d := l.checkDuetPairs(e, attrs["pairs"], at); d != nil {
		diags = append(diags, d)
	}
	if n := cellCount(e); n != 2 {
		diags = append(diags, errorf(rangeOr(attrs["matrix"], a), "A duet needs two cells",
			"design = \"duet\" (at %s) compares two cells, one per pair at once; the matrix has %d. Give it one key with two values (matrix = { mtu = [1500, 9000] }).", at, n))
	}
	r := attrs["repeat"]
	switch {
	case r == nil:
		diags = append(diags, errorf(a.Range, "A duet needs repeat",
			"design = \"duet\" swaps the pairs every second repeat: set repeat to an even number, 4 or more (repeat = 8)."))
	case e.MinRepeat > 0 || e.UntilVerdict || e.UntilCI > 0:
		diags = append(diags, errorf(r.Expr.Range(), "Adaptive repeats with a duet",
			"design = \"duet\" (at %s) runs both cells at once: one cannot stop while the other runs. Use repeat = N, even, 4 or more.", at))
	case e.Repeat < 4 || e.Repeat%2 != 0:
		diags = append(diags, errorf(r.Expr.Range(), "Duet repeats",
			"design = \"duet\" (at %s) swaps the pairs every second repeat and judges over swap pairs: repeat must be even and 4 or more, not %d.", at, e.Repeat))
	}
	if !diags.HasErrors() {
		e.Design = DesignDuet
	}
	return diags
}

// checkDuetPairs refuses a duet whose two pairs differ in more than their
// names and addresses: the cells' difference is what a duet measures.
func (l *loader) checkDuetPairs(e *Experiment, pairs *hcl.Attribute, at string) *hcl.Diagnostic {
	a, b := l.lab.Pairs[e.Pairs[0]], l.lab.Pairs[e.Pairs[1]]
	if a == nil || b == nil || pairs == nil {
		return nil // reported already
	}
	if reflect.DeepEqual(pairShape(*a), pairShape(*b)) {
		return nil
	}
	return errorf(pairs.Expr.Range(), "Duet pairs differ",
		"design = \"duet\" (at %s) puts the two cells on pair.%s and pair.%s, swapped every second repeat: the pairs must be equal apart from their names (template, via, vcpu, memory, nic, link MTU), so that only the cells differ. pair.%s is declared at %s, pair.%s at %s.",
		at, a.Name, b.Name, a.Name, declaredAt(a.DeclRange), b.Name, declaredAt(b.DeclRange))
}

// pairShape is p without what names or places it.
func pairShape(p Pair) Pair {
	p.Name, p.Addresses, p.DeclRange, p.Ranges = "", nil, hcl.Range{}, nil
	return p
}

// cellCount is the number of e's matrix cells per pair.
func cellCount(e *Experiment) int {
	n := 1
	for _, d := range e.Matrix {
		n *= len(d.Values)
	}
	return n
}

// rangeOr is where a is written, else where fallback is.
func rangeOr(a, fallback *hcl.Attribute) hcl.Range {
	if a != nil {
		return a.Expr.Range()
	}
	return fallback.Range
}
