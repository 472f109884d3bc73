package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// duetDesignScales are the factors the mtu=9000 cell of a published apply
// is scaled by before it is judged against another apply (1: A/A).
var duetDesignScales = []float64{1, 0.9, 0.85, 0.67}

// duetDesignSpec is examples/duet-mtu with repeat set to repeat.
func duetDesignSpec(repeat int) (string, error) {
	data, err := os.ReadFile("../../examples/duet-mtu/lab.hcl")
	if err != nil {
		return "", err
	}
	re := regexp.MustCompile(`(?m)^(\s*repeat\s*=\s*)[0-9]+`)
	if !re.Match(data) {
		return "", fmt.Errorf("examples/duet-mtu/lab.hcl: no repeat to set")
	}
	return re.ReplaceAllString(string(data), "${1}"+strconv.Itoa(repeat)), nil
}

// BenchmarkDuetDesign (`make duet`, issue 32 §1 and §7) measures the
// design = "duet" of matrix cells on this machine: LAB_DUETD_APPLIES real
// applies (default 4) of examples/duet-mtu (mtu 1500 and 9000 at once on
// two equal veth pairs, swapped every second repeat) with LAB_DUETD_REPEAT
// repeats (default 16), then every apply judged against every other with
// lab reproduce's shape rule (verdicts.Shapes, the default 5 % shape
// margin) — as is (A/A) and with the published apply's mtu=9000 scaled by
// each of duetDesignScales — and prints the not-reproduced rates, the
// applies' wall time and load, and issue 32 §7's goals as MET or NOT met.
// LAB_DUETD_KEEP=DIR keeps the lab and duet-applies.json in DIR: run again
// with the same DIR to judge the applies there anew and make only the
// missing ones.
func BenchmarkDuetDesign(b *testing.B) {
	needNamespacesB(b)
	applies, repeat := envInt("LAB_DUETD_APPLIES", 4), envInt("LAB_DUETD_REPEAT", 16)
	dir := os.Getenv("LAB_DUETD_KEEP")
	if dir == "" {
		dir = b.TempDir()
	}
	src, err := duetDesignSpec(repeat)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "lab.hcl")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	kept := keptDuetApplies(b, dir)
	for len(kept) < applies {
		k := duetRun(b, dir, 0, "duet design")
		kept = append(kept, k)
		fmt.Printf("duet design: apply %d %s, load %.1f → %.1f\n", len(kept), k.Wall.Round(time.Second), k.Load0, k.Load1)
		if err := writeDuetApplies(dir, kept); err != nil {
			b.Fatal(err)
		}
	}
	recs := make([][]results.Record, len(kept))
	for i, k := range kept {
		if _, recs[i], err = (results.Store{Dir: filepath.Join(dir, "results")}).Load(k.Run); err != nil {
			b.Fatal(err)
		}
	}
	printDuetDesign(os.Stdout, kept, judgeDuetDesign(recs))
}

// duetDesignRow is one scale's judgments: how many, how many not
// reproduced, and their MDEs.
type duetDesignRow struct {
	scale     float64
	n, caught int
	mde       []float64
}

// judgeDuetDesign judges every apply's shape, its mtu=9000 scaled, against
// every other apply's.
func judgeDuetDesign(recs [][]results.Record) []duetDesignRow {
	rows := make([]duetDesignRow, len(duetDesignScales))
	for si, s := range duetDesignScales {
		rows[si].scale = s
		for i := range recs {
			pub := results.Group(scaleCell(recs[i], sensitivityCell, s))
			for j := range recs {
				if i == j {
					continue
				}
				for _, sh := range verdicts.Shapes(pub, results.Group(recs[j]), verdicts.ShapeOptions{Margin: verdicts.DefaultShapeMargin}) {
					rows[si].n++
					if sh.Verdict == verdicts.NotReproduced {
						rows[si].caught++
					}
					rows[si].mde = append(rows[si].mde, sh.MDE)
				}
			}
		}
	}
	return rows
}

// scaleCell is recs with cell's throughput multiplied by f.
func scaleCell(recs []results.Record, cell string, f float64) []results.Record {
	out := slices.Clone(recs)
	for i := range out {
		if out[i].CellKey == cell {
			out[i].Metrics.ThroughputBps *= f
		}
	}
	return out
}

// printDuetDesign prints the rows and issue 32 §7's goals.
func printDuetDesign(w io.Writer, kept []duetKept, rows []duetDesignRow) {
	lo, hi, wall := math.Inf(1), math.Inf(-1), time.Duration(0)
	for _, k := range kept {
		lo, hi = min(lo, k.Load0, k.Load1), max(hi, k.Load0, k.Load1)
		wall = max(wall, k.Wall)
	}
	fmt.Fprintf(w, "duet design: %d applies, longest %s, load 1-min %.1f–%.1f (now %s)\n", len(kept), wall.Round(time.Second), lo, hi, loadAvg())
	fmt.Fprintf(w, "%-8s %10s %14s %10s\n", "scale", "judgments", "not reproduced", "median MDE")
	rate := map[float64]float64{}
	for _, r := range rows {
		if r.n == 0 {
			continue
		}
		rate[r.scale] = float64(r.caught) / float64(r.n)
		slices.Sort(r.mde)
		fmt.Fprintf(w, "×%-7.2f %10d %13.1f%% %9.1f%%\n", r.scale, r.n, 100*rate[r.scale], 100*r.mde[len(r.mde)/2])
	}
	met := func(ok bool) string {
		if ok {
			return "MET"
		}
		return "NOT met"
	}
	fmt.Fprintf(w, "A/A not reproduced ≤ 5 %%: %.1f %%: %s\n", 100*rate[1], met(rate[1] <= 0.05))
	fmt.Fprintf(w, "10 %% change detected with ≥ 80 %% power in ≤ 10 min of benchmark time: %.1f %%, longest apply %s: %s\n",
		100*rate[0.9], wall.Round(time.Second), met(rate[0.9] >= 0.8 && wall <= 10*time.Minute))
	fmt.Fprintf(w, "15 %% change seen at load %.1f–%.1f: %.1f %%: %s\n", lo, hi, 100*rate[0.85], met(rate[0.85] >= 0.8))
}
