package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Ratio is a comparison's ratio in one package over the runs of a go test
// run: one ratio per run, each from samples of that run.
type Ratio struct {
	Mean, Min, Max float64 // over the runs
	Runs           int
	// Subject and Baseline are the means of the numerator and the
	// denominator: for a comparison Across packages, the reference's and
	// the lab's.
	Subject, Baseline float64
}

// Ratio returns c's ratio in pkg: Subject over Baseline in each run. For a
// comparison Across packages pkg is ignored, and the ratio is the lab's
// speed as a fraction of the reference's: the reference's Subject over the
// lab's, run by run. ok is false if the run has no pair of samples for it.
func (c Comparison) Ratio(m *Measurements, pkg string) (r Ratio, ok bool) {
	of, over := m.values(pkg, c.Subject), m.values(pkg, c.Baseline)
	if c.Across {
		of, over = m.values(RefPkg, c.Subject), m.values(LabPkg, c.Subject)
	}
	r.Runs = min(len(of), len(over))
	if r.Runs == 0 {
		return Ratio{}, false
	}
	for i := range r.Runs {
		x := of[i] / over[i]
		if i == 0 {
			r.Min, r.Max = x, x
		}
		r.Mean += x / float64(r.Runs)
		r.Min, r.Max = min(r.Min, x), max(r.Max, x)
		r.Subject += of[i] / float64(r.Runs)
		r.Baseline += over[i] / float64(r.Runs)
	}
	return r, true
}

// values returns metric's value in each run of pkg that reported it.
func (m *Measurements) values(pkg string, metric Metric) []float64 {
	var vs []float64
	for _, s := range m.Samples(pkg, metric.Benchmark) {
		if v, ok := s[metric.Unit]; ok && v > 0 {
			vs = append(vs, v)
		}
	}
	return vs
}

// mean returns the mean of metric over the runs of pkg and how many there
// were.
func (m *Measurements) mean(pkg string, metric Metric) (mean float64, runs int) {
	vs := m.values(pkg, metric)
	for _, v := range vs {
		mean += v / float64(len(vs))
	}
	return mean, len(vs)
}

// Report writes every comparison of the stages m covers and of its run
// (quick or full) for which m has samples, lab beside reference, then a
// note on noise.
func Report(w io.Writer, m *Measurements) {
	wrote := false
	for i := 0; i < len(Comparisons); i++ {
		c := Comparisons[i]
		if !slices.Contains(m.Stages, c.Stage) || !c.Depth.In(m.Full) {
			continue
		}
		var ok bool
		switch {
		case c.Group != "":
			j := i + 1
			for j < len(Comparisons) && Comparisons[j].Group == c.Group {
				j++
			}
			var group []Comparison
			for _, g := range Comparisons[i:j] {
				if g.Depth.In(m.Full) {
					group = append(group, g)
				}
			}
			ok = reportGroup(w, m, group)
			i = j - 1
		case c.Across:
			ok = reportAcross(w, m, c)
		default:
			ok = reportWithin(w, m, c)
		}
		wrote = wrote || ok
	}
	if wrote {
		fmt.Fprintln(w, "note: every ratio pairs CPU times from the same run, but the machine's noise (caches shared with other processes, CPU frequency) still moves single runs: read each ratio with its range and the noise floor; de bench --full (go's default benchtime, 5 runs) narrows them")
	}
}

// reportAcross writes the lab's speed against the reference's (the first
// line of de bench), with ns/event and allocs/event of each.
func reportAcross(w io.Writer, m *Measurements, c Comparison) bool {
	r, ok := c.Ratio(m, "")
	if !ok {
		return false
	}
	allocs := Metric{c.Subject.Benchmark, "allocs/event"}
	labAllocs, _ := m.mean(LabPkg, allocs)
	fmt.Fprintf(w, "your processor: %s the reference%s, %s allocs/event\n", times(r.Mean), spread(r, " ("), decimals(labAllocs))
	fmt.Fprintf(w, "  over %s\n", c.Legend)
	for _, p := range []struct{ label, pkg string }{{"lab/:", LabPkg}, {"reference:", RefPkg}} {
		ns, runs := m.mean(p.pkg, c.Subject)
		a, _ := m.mean(p.pkg, allocs)
		fmt.Fprintf(w, "  %-12s %8.1f %s, %s allocs/event (%d run(s))\n", p.label, ns, unitLabel(c.Subject.Unit), decimals(a), runs)
	}
	fmt.Fprintf(w, "  %s\n", noiseFloor(m.values(RefPkg, c.Subject)))
	return true
}

// noiseFloor says how far apart the reference's own runs of a benchmark
// were: the least and the most of them over their mean. A lab identical to
// the reference would read anywhere in that range, so a ratio inside it is
// no difference.
func noiseFloor(ref []float64) string {
	if len(ref) < 2 {
		return "noise floor: one run has no range; -count 3 or more prints this run's, and a ratio within it is no difference"
	}
	mean := 0.0
	for _, v := range ref {
		mean += v / float64(len(ref))
	}
	return fmt.Sprintf("noise floor: the reference's own %d runs read %s–%s its mean; a ratio within that is no difference",
		len(ref), strings.TrimSuffix(times(slices.Min(ref)/mean), "×"), times(slices.Max(ref)/mean))
}

// reportWithin writes a comparison's ratio in the lab and in the
// reference, and what the lab's means if it reaches the comparison's Worry;
// nothing if the lab has no ratio (a benchmark that failed, say).
func reportWithin(w io.Writer, m *Measurements, c Comparison) bool {
	lab, labOK := c.Ratio(m, LabPkg)
	ref, refOK := c.Ratio(m, RefPkg)
	if !labOK {
		return false
	}
	fmt.Fprintf(w, "%02d %s (%s):\n", c.Stage, c.Title, c.Goal)
	for _, p := range []struct {
		label string
		r     Ratio
		ok    bool
	}{{"lab/:", lab, true}, {"reference:", ref, refOK}} {
		if !p.ok {
			fmt.Fprintf(w, "  %-12s not measured\n", p.label)
			continue
		}
		fmt.Fprintf(w, "  %-12s %s  (%s → %s %s%s)\n", p.label, times(p.r.Mean), decimals(p.r.Baseline), decimals(p.r.Subject), unitLabel(c.Subject.Unit), spread(p.r, "; "))
	}
	if c.Worry > 0 && lab.Mean >= c.Worry {
		fmt.Fprintf(w, "  %s on your lab/: %s\n", times(lab.Mean), c.Diagnosis)
	}
	return true
}

// reportGroup writes a table of comparisons that share a Group: a heading
// and a legend, then a row per comparison with the lab's ratio and the
// reference's, then what each of the lab's ratios that reaches its Worry
// means; nothing if the lab has no ratio for any row.
func reportGroup(w io.Writer, m *Measurements, cs []Comparison) bool {
	type row struct {
		label, lab, ref string
	}
	cell := func(c Comparison, pkg string) (string, bool) {
		r, ok := c.Ratio(m, pkg)
		if !ok {
			return "not measured", false
		}
		return fmt.Sprintf("%s (%s → %s %s%s)", times(r.Mean), decimals(r.Baseline), decimals(r.Subject), unitLabel(c.Subject.Unit), spread(r, "; ")), true
	}
	var rows []row
	var worries []string
	labelWidth, labWidth, measured := 0, 0, false
	for _, c := range cs {
		lab, ok := cell(c, LabPkg)
		ref, _ := cell(c, RefPkg)
		rows = append(rows, row{c.Label + ":", lab, ref})
		labelWidth, labWidth = max(labelWidth, utf8.RuneCountInString(c.Label)+1), max(labWidth, utf8.RuneCountInString(lab))
		measured = measured || ok
		if r, _ := c.Ratio(m, LabPkg); ok && c.Worry > 0 && r.Mean >= c.Worry {
			worries = append(worries, fmt.Sprintf("%s on your lab/: %s", times(r.Mean), c.Diagnosis))
		}
	}
	if !measured {
		return false
	}
	fmt.Fprintf(w, "%02d %s (%s):\n", cs[0].Stage, cs[0].Group, cs[0].Goal)
	if cs[0].Legend != "" {
		fmt.Fprintf(w, "  %s\n", cs[0].Legend)
	}
	for _, r := range rows {
		pad := strings.Repeat(" ", labWidth-utf8.RuneCountInString(r.lab))
		fmt.Fprintf(w, "  %-*s  lab/ %s%s   reference %s\n", labelWidth, r.label, r.lab, pad, r.ref)
	}
	for _, l := range worries {
		fmt.Fprintf(w, "  %s\n", l)
	}
	return true
}

// unitLabel renders a metric's unit for people: cpu-ns/event is "CPU
// ns/event", and so is a contender's of stagebench.Race, such as
// processor-cpu-ns/event.
func unitLabel(unit string) string {
	if _, rest, ok := strings.Cut(unit, "cpu-"); ok {
		return "CPU " + rest
	}
	return unit
}

// times renders a ratio: 1.05×, 31×, and ratios below 0.1 to two
// significant digits, 0.0038×, so that a small one does not read 0.00×.
func times(r float64) string {
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r < 0.1:
		return fmt.Sprintf("%.2g×", r)
	default:
		return fmt.Sprintf("%.2f×", r)
	}
}

// spread renders a ratio's range over its runs, when there are several,
// after sep: sep "; " gives "; 0.98–1.12× over 5 runs", and sep " (" gives
// " (0.98–1.12× over 5 runs)".
func spread(r Ratio, sep string) string {
	if r.Runs < 2 {
		return ""
	}
	s := fmt.Sprintf("%s%s–%s over %d runs", sep, strings.TrimSuffix(times(r.Min), "×"), times(r.Max), r.Runs)
	if strings.HasSuffix(sep, "(") {
		s += ")"
	}
	return s
}

// decimals renders a measured value: whole numbers as such, values of 100
// or more to the unit, smaller ones to two decimals.
func decimals(v float64) string {
	switch {
	case v == float64(int64(v)):
		return fmt.Sprintf("%d", int64(v))
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
