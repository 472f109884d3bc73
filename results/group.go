package results

import "slices"

// CellGroup is the summary of one cell of one pair in one experiment: the
// successful, non-warm-up runs of that cell.
type CellGroup struct {
	Experiment string      `json:"experiment"`
	Pair       string      `json:"pair"`
	Cell       []CellValue `json:"cell"`
	CellKey    string      `json:"cell_key"`
	// N is the number of successful runs summarised; Failed counts the
	// runs that ended in an error (a group with N = 0 and Failed > 0 is
	// kept, so that a cell that always failed still shows up).
	N      int `json:"n"`
	Failed int `json:"failed,omitempty"`
	// ThroughputBps is the receiver's throughput in bits per second.
	ThroughputBps Summary `json:"throughput_bps"`
	Retransmits   Summary `json:"retransmits"`
	// ServerCPU and ClientCPU are system-wide busy percentages.
	ServerCPU Summary `json:"server_cpu_pct"`
	ClientCPU Summary `json:"client_cpu_pct"`
	// Kernels, ToolVersions and Hosts are the distinct provenance values
	// of the group's runs, in first-seen order.
	Kernels      []string `json:"kernels,omitempty"`
	ToolVersions []string `json:"tool_versions,omitempty"`
	Hosts        []string `json:"hosts,omitempty"`
}

// Group groups records by experiment, pair and cell key, in first-seen
// order, and summarises each group. Warm-up runs are left out; failed runs
// are only counted.
func Group(records []Record) []CellGroup {
	type key struct{ exp, pair, cell string }
	type acc struct {
		group                      CellGroup
		tput, retr, srvCPU, cliCPU []float64
	}
	index := map[key]int{}
	var accs []*acc
	for _, r := range records {
		if r.Warmup {
			continue
		}
		k := key{r.Experiment, r.Pair, r.CellKey}
		i, ok := index[k]
		if !ok {
			i = len(accs)
			index[k] = i
			accs = append(accs, &acc{group: CellGroup{
				Experiment: r.Experiment, Pair: r.Pair, Cell: r.Cell, CellKey: r.CellKey,
			}})
		}
		a := accs[i]
		if r.Error != "" {
			a.group.Failed++
			continue
		}
		m := r.Metrics
		a.tput = append(a.tput, m.ThroughputBps)
		a.retr = append(a.retr, float64(m.Retransmits))
		a.srvCPU = append(a.srvCPU, m.ServerCPU.Busy)
		a.cliCPU = append(a.cliCPU, m.ClientCPU.Busy)
		p := r.Provenance
		a.group.Kernels = addDistinct(a.group.Kernels, p.ServerKernel, p.ClientKernel)
		tool := p.ToolVersion
		if tool == "" {
			tool = m.Version
		}
		a.group.ToolVersions = addDistinct(a.group.ToolVersions, tool)
		a.group.Hosts = addDistinct(a.group.Hosts, p.Host)
	}
	groups := make([]CellGroup, len(accs))
	for i, a := range accs {
		g := a.group
		g.N = len(a.tput)
		g.ThroughputBps = Summarize(a.tput)
		g.Retransmits = Summarize(a.retr)
		g.ServerCPU = Summarize(a.srvCPU)
		g.ClientCPU = Summarize(a.cliCPU)
		groups[i] = g
	}
	return groups
}

// addDistinct appends the non-empty values not yet in list.
func addDistinct(list []string, values ...string) []string {
	for _, v := range values {
		if v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
