package results

// SeqDesign is where a cell's sequential looks fall: after Min, Min+Step,
// … runs, the last no later than Max. A cell records the design it ran
// under (PlannedCell.Sequential); verdicts holds the boundaries of its
// looks and the rule that replays them (GroupSeqVerdict).
type SeqDesign struct {
	Min  int `json:"min"`
	Max  int `json:"max"`
	Step int `json:"step"`
}
