package flinkcmp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/demostream"
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/kit"
)

func res(key string, start, end, count, sum int64, update bool) kit.Result {
	return kit.Result{Key: key, Start: start, End: end, Count: count, Sum: sum, IsUpdate: update}
}

func ev(id, key string, ts, value int64) kit.Event {
	return kit.Event{ID: id, Key: key, TS: ts, Value: value}
}

// TestCompareAppliesTheConventions certifies that Compare puts both sides
// in the same order before comparing (results stably by (End, Start, Key),
// so that a window's updates keep their order; late events by arrival;
// Flink's rolling sums reduced to each key's last) and lines up what
// differs row by row.
func TestCompareAppliesTheConventions(t *testing.T) {
	input := []kit.Event{ev("e1", "a", 1, 1), ev("e2", "b", 3, 2), ev("e3", "a", 8, 6)}
	rules := []demostream.Rule{{Prefix: "x", Threshold: 1, TS: 1}, {Prefix: "eu-", Threshold: 100, TS: 9}}
	cases := []struct {
		name       string
		lab, flink jobio.Output
		rows       []Row
		differ     int
	}{
		{
			name:  "windows fired in another order agree",
			lab:   jobio.Output{Results: []kit.Result{res("a", 0, 10, 1, 1, false), res("b", 0, 10, 1, 2, false)}},
			flink: jobio.Output{Results: []kit.Result{res("b", 0, 10, 1, 2, false), res("a", 0, 10, 1, 1, false)}},
			rows: []Row{
				{"a [0,10) count=1 sum=1", "a [0,10) count=1 sum=1", true},
				{"b [0,10) count=1 sum=2", "b [0,10) count=1 sum=2", true},
			},
		},
		{
			name:  "an update stays after the result it corrects",
			lab:   jobio.Output{Results: []kit.Result{res("a", 0, 10, 1, 1, false), res("a", 10, 20, 1, 5, false), res("a", 0, 10, 2, 7, true)}},
			flink: jobio.Output{Results: []kit.Result{res("a", 0, 10, 1, 1, false), res("a", 0, 10, 2, 7, true), res("a", 10, 20, 1, 5, false)}},
			rows: []Row{
				{"a [0,10) count=1 sum=1", "a [0,10) count=1 sum=1", true},
				{"a [0,10) count=2 sum=7 (update)", "a [0,10) count=2 sum=7 (update)", true},
				{"a [10,20) count=1 sum=5", "a [10,20) count=1 sum=5", true},
			},
		},
		{
			name:  "late events in arrival order",
			lab:   jobio.Output{Late: []kit.Event{input[2], input[0]}},
			flink: jobio.Output{Late: []kit.Event{input[0], input[2]}},
			rows: []Row{
				{"late e1 a@1=1", "late e1 a@1=1", true},
				{"late e3 a@8=6", "late e3 a@8=6", true},
			},
		},
		{
			name:  "Flink's last rolling sum per key against the final sums",
			lab:   jobio.Output{Sums: []kit.Event{ev("e2", "b", 3, 2), ev("e1", "a", 1, 7)}},
			flink: jobio.Output{Sums: []kit.Event{ev("e1", "a", 1, 1), ev("e2", "b", 3, 2), ev("e1", "a", 1, 7)}},
			rows: []Row{
				{"a sum=7 (first event e1)", "a sum=7 (first event e1)", true},
				{"b sum=2 (first event e2)", "b sum=2 (first event e2)", true},
			},
		},
		{
			name:  "a wrong count is one row, a missing late event another",
			lab:   jobio.Output{Results: []kit.Result{res("a", 0, 10, 2, 2, false), res("b", 0, 10, 1, 2, false)}},
			flink: jobio.Output{Results: []kit.Result{res("a", 0, 10, 1, 1, false), res("b", 0, 10, 1, 2, false)}, Late: []kit.Event{input[2]}},
			rows: []Row{
				{"a [0,10) count=2 sum=2", "a [0,10) count=1 sum=1", false},
				{"b [0,10) count=1 sum=2", "b [0,10) count=1 sum=2", true},
				{"", "late e3 a@8=6", false},
			},
			differ: 2,
		},
		{
			name: "alerts by result then prefix, late rules in arrival order",
			lab: jobio.Output{
				Alerts: []jobio.Alert{
					{Result: res("us-1", 10, 20, 1, 2, false), Rule: jobio.Rule{Prefix: "us-", Threshold: 1, TS: 10}},
					{Result: res("eu-1", 0, 10, 1, 7, false), Rule: jobio.Rule{Prefix: "eu-1", Threshold: 5, TS: 8}},
					{Result: res("eu-1", 0, 10, 1, 7, false), Rule: jobio.Rule{Prefix: "eu-", Threshold: 5, TS: 8}},
				},
				LateRules: []jobio.Rule{{Prefix: "eu-", Threshold: 100, TS: 9}, {Prefix: "x", Threshold: 1, TS: 1}},
			},
			flink: jobio.Output{
				Alerts: []jobio.Alert{
					{Result: res("eu-1", 0, 10, 1, 7, false), Rule: jobio.Rule{Prefix: "eu-", Threshold: 5, TS: 8}},
					{Result: res("eu-1", 0, 10, 1, 7, false), Rule: jobio.Rule{Prefix: "eu-1", Threshold: 5, TS: 8}},
					{Result: res("us-1", 10, 20, 1, 2, false), Rule: jobio.Rule{Prefix: "us-", Threshold: 1, TS: 10}},
				},
				LateRules: []jobio.Rule{{Prefix: "x", Threshold: 1, TS: 1}, {Prefix: "eu-", Threshold: 100, TS: 9}},
			},
			rows: []Row{
				{`ALERT eu-1 [0,10) count=1 sum=7 ≥ {"eu-" ≥ 5 from 8}`, `ALERT eu-1 [0,10) count=1 sum=7 ≥ {"eu-" ≥ 5 from 8}`, true},
				{`ALERT eu-1 [0,10) count=1 sum=7 ≥ {"eu-1" ≥ 5 from 8}`, `ALERT eu-1 [0,10) count=1 sum=7 ≥ {"eu-1" ≥ 5 from 8}`, true},
				{`ALERT us-1 [10,20) count=1 sum=2 ≥ {"us-" ≥ 1 from 10}`, `ALERT us-1 [10,20) count=1 sum=2 ≥ {"us-" ≥ 1 from 10}`, true},
				{`late rule {"x" ≥ 1 from 1}`, `late rule {"x" ≥ 1 from 1}`, true},
				{`late rule {"eu-" ≥ 100 from 9}`, `late rule {"eu-" ≥ 100 from 9}`, true},
			},
		},
		{
			name:  "nothing on either side agrees",
			lab:   jobio.Output{},
			flink: jobio.Output{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Compare(c.lab, c.flink, demostream.Stream{Events: input, Rules: rules})
			if len(got.Rows) != len(c.rows) {
				t.Fatalf("Compare gave %d rows, want %d:\n got %+v\nwant %+v", len(got.Rows), len(c.rows), got.Rows, c.rows)
			}
			for i := range c.rows {
				if got.Rows[i] != c.rows[i] {
					t.Errorf("row %d: got %+v, want %+v", i, got.Rows[i], c.rows[i])
				}
			}
			if got.Differ() != c.differ || got.Agree() != (c.differ == 0) {
				t.Errorf("Differ() = %d, Agree() = %v; want %d", got.Differ(), got.Agree(), c.differ)
			}
		})
	}
}

// TestEveryStageIsComparedOrSaysWhyNot certifies that each of the twelve
// stages either has a job, a demo stream and a lab driver, or a reason
// de flink gives for having none.
func TestEveryStageIsComparedOrSaysWhyNot(t *testing.T) {
	for n := 1; n <= 12; n++ {
		ok, why := Comparable(n)
		_, hasStream := demostream.Of(n)
		driver := filepath.Join("..", "labjob", "stage"+fmt.Sprintf("%02d", n), "main.go")
		_, err := os.Stat(driver)
		switch {
		case ok && (!hasStream || err != nil):
			t.Errorf("stage %02d is comparable but has no demo stream (%v) or no driver (%v)", n, hasStream, err)
		case ok && len(jobs[n].flags(demostream.Stream{}, "rules.jsonl")) == 0:
			t.Errorf("stage %02d's job gets no flags: its own defaults would decide", n)
		case !ok && !strings.Contains(why, "has no output de flink can compare: "):
			t.Errorf("stage %02d is not comparable and says %q, not why", n, why)
		}
	}
}
