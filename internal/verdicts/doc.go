// Package verdicts holds the rules that judge the records package results
// stores and groups: expectations (Evaluate), comparisons of two applies
// (Compare), published tables and their shapes, sequential and
// group-sequential stops, equivalence, paired ratios and duets, the count
// rule and the factor-effects model. It imports results and results never
// imports it: what a run wrote is read the same whichever rule judges it.
package verdicts
