package flinkcmp

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/flk-byo/course/internal/demostream"
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/kit"
)

// Row is one line of the side-by-side view: what the lab printed and what
// Flink printed there ("" for nothing), and whether they are the same.
type Row struct {
	Lab, Flink string
	Same       bool
}

// Comparison is the two outputs after the conventions, aligned.
type Comparison struct {
	Rows []Row
}

// Differ is the number of rows that are not the same.
func (c Comparison) Differ() int {
	n := 0
	for _, r := range c.Rows {
		if !r.Same {
			n++
		}
	}
	return n
}

// Agree reports whether the two outputs are the same.
func (c Comparison) Agree() bool { return c.Differ() == 0 }

// Compare puts the outputs of a stage's lab and Flink, both fed the stream
// s, into the same order and aligns them line by line:
//
//   - results stable-sorted by (End, Start, Key): the jobs print no steps,
//     so the convention of comparing one call's results in that order
//     (docs/PARITY.md) covers the whole output; each window's results
//     (a first firing, then its updates or retractions) stay in the order
//     they were emitted;
//   - late events in the order they arrived in input, as subtasks may
//     interleave them;
//   - stage 02: Flink's last rolling sum per key, by key, against each of
//     the lab's final sums;
//   - stage 11: alerts stably by their results' (End, Start, Key), then
//     by prefix (one result's alerts), as the job sorts them; late rules
//     in the order they arrived.
func Compare(lab, flink jobio.Output, s demostream.Stream) Comparison {
	left, right := lines(lab, s, false), lines(flink, s, true)
	return align(left, right)
}

// lines renders an output as the lines the view compares.
func lines(o jobio.Output, s demostream.Stream, rolling bool) []string {
	input := s.Events
	var out []string
	results := slices.Clone(o.Results)
	slices.SortStableFunc(results, kit.CompareResults)
	for _, r := range results {
		out = append(out, r.String())
	}
	sums := o.Sums
	if rolling { // Flink's reduce: each key's last rolling output
		last := map[string]kit.Event{}
		for _, e := range o.Sums {
			last[e.Key] = e
		}
		sums = nil
		for _, k := range slices.Sorted(maps.Keys(last)) {
			sums = append(sums, last[k])
		}
	} else {
		sums = slices.Clone(sums)
		slices.SortStableFunc(sums, func(a, b kit.Event) int { return cmp.Compare(a.Key, b.Key) })
	}
	for _, e := range sums {
		out = append(out, fmt.Sprintf("%s sum=%d (first event %s)", kit.ShowString(e.Key), e.Value, kit.ShowString(e.ID)))
	}
	alerts := slices.Clone(o.Alerts)
	slices.SortStableFunc(alerts, func(a, b jobio.Alert) int {
		return cmp.Or(kit.CompareResults(a.Result, b.Result), cmp.Compare(a.Rule.Prefix, b.Rule.Prefix))
	})
	for _, a := range alerts {
		out = append(out, fmt.Sprintf("ALERT %s ≥ %s", a.Result, ruleString(a.Rule)))
	}
	late := slices.Clone(o.Late)
	arrived := map[kit.Event]int{}
	for i, e := range input {
		if _, ok := arrived[e]; !ok {
			arrived[e] = i
		}
	}
	slices.SortStableFunc(late, func(a, b kit.Event) int { return cmp.Compare(position(arrived, a), position(arrived, b)) })
	for _, e := range late {
		out = append(out, "late "+e.String())
	}
	lateRules := slices.Clone(o.LateRules)
	slices.SortStableFunc(lateRules, func(a, b jobio.Rule) int {
		return cmp.Compare(slices.Index(s.Rules, demostream.Rule(a)), slices.Index(s.Rules, demostream.Rule(b)))
	})
	for _, r := range lateRules {
		out = append(out, "late rule "+ruleString(r))
	}
	return out
}

// ruleString renders a rule as de demo does.
func ruleString(r jobio.Rule) string { return demostream.Rule(r).String() }

// position is where e first arrived in the input; an event the input does
// not hold comes last.
func position(arrived map[kit.Event]int, e kit.Event) int {
	if i, ok := arrived[e]; ok {
		return i
	}
	return len(arrived) + 1
}

// align lines a and b up along their longest common subsequence; between
// two common lines, the lines only one side has are paired up row by row.
func align(a, b []string) Comparison {
	// lcs[i][j] is the length of the LCS of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var c Comparison
	var onlyA, onlyB []string
	flush := func() {
		for k := range max(len(onlyA), len(onlyB)) {
			var r Row
			if k < len(onlyA) {
				r.Lab = onlyA[k]
			}
			if k < len(onlyB) {
				r.Flink = onlyB[k]
			}
			c.Rows = append(c.Rows, r)
		}
		onlyA, onlyB = nil, nil
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			flush()
			c.Rows = append(c.Rows, Row{Lab: a[i], Flink: b[j], Same: true})
			i, j = i+1, j+1
		case j == len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			onlyA = append(onlyA, a[i])
			i++
		default:
			onlyB = append(onlyB, b[j])
			j++
		}
	}
	flush()
	return c
}
