// Package jobio is the input and output of the course's graduation jobs
// (flink/jobs.md), in Go: the events and rules they read and the JSON lines
// they print. `de flink` runs a stage's Flink job and the learner's lab/ on
// the same input and reads both outputs with Parse; the lab's side is a
// small driver per stage (internal/labjob) that reads the same input and
// prints the same lines with Output.Write.
//
// The formats are the jobs' (dev.flkbyo.flink.jobs.JobMain): one JSON
// object a line; an event is {"id","key","ts","value"}, a result
// {"key","start","end","count","sum","update"}, an alert
// {"result":{…},"rule":{…}}, a late event {"late":{…}}, a late rule
// {"lateRule":{…}}, a rule {"prefix","threshold","ts"}.
package jobio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/flk-byo/course/kit"
)

// Rule is one element of stage 11's rules stream: from event time TS on, a
// window result of a key that starts with Prefix alerts when its Sum
// reaches Threshold (solutions.Rule, with the job's JSON names).
type Rule struct {
	Prefix    string `json:"prefix"`
	Threshold int64  `json:"threshold"`
	TS        int64  `json:"ts"`
}

// Alert is a window result that reached the threshold of a rule in force at
// the window's end (stage 11).
type Alert struct {
	Result kit.Result
	Rule   Rule
}

// Output is what a job printed, each part in the order it was printed.
type Output struct {
	// Results are a windowed job's results (stage 08's changelog too).
	Results []kit.Result
	// Sums are stage 02's: Flink's job prints every rolling sum, one event
	// per input event (the key's first event, its value the sum so far);
	// the lab's driver prints each key's final sum, as RunParallel returns
	// it.
	Sums []kit.Event
	// Alerts are stage 11's.
	Alerts []Alert
	// Late are the events the job sent to its side output.
	Late []kit.Event
	// LateRules are stage 11's late rules.
	LateRules []Rule
}

// event, result and alert are the JSON forms of kit.Event, kit.Result and
// Alert.
type event struct {
	ID    string `json:"id"`
	Key   string `json:"key"`
	TS    int64  `json:"ts"`
	Value int64  `json:"value"`
}

type result struct {
	Key    string `json:"key"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Count  int64  `json:"count"`
	Sum    int64  `json:"sum"`
	Update bool   `json:"update"`
}

type alert struct {
	Result result `json:"result"`
	Rule   Rule   `json:"rule"`
}

func toEvent(e kit.Event) event { return event(e) }
func (e event) kit() kit.Event  { return kit.Event(e) }

func toResult(r kit.Result) result {
	return result{Key: r.Key, Start: r.Start, End: r.End, Count: r.Count, Sum: r.Sum, Update: r.IsUpdate}
}

func (r result) kit() kit.Result {
	return kit.Result{Key: r.Key, Start: r.Start, End: r.End, Count: r.Count, Sum: r.Sum, IsUpdate: r.Update}
}

// Write prints o as the jobs do: the results, sums or alerts, then the late
// events, then the late rules, one JSON object a line.
func (o Output) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	var err error
	put := func(v any) {
		if err == nil {
			err = enc.Encode(v)
		}
	}
	for _, r := range o.Results {
		put(toResult(r))
	}
	for _, e := range o.Sums {
		put(toEvent(e))
	}
	for _, a := range o.Alerts {
		put(alert{toResult(a.Result), a.Rule})
	}
	for _, e := range o.Late {
		put(struct {
			Late event `json:"late"`
		}{toEvent(e)})
	}
	for _, r := range o.LateRules {
		put(struct {
			LateRule Rule `json:"lateRule"`
		}{r})
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// Parse reads what a job printed. A line that is no line of a job's output
// is an error naming it.
func Parse(data []byte) (Output, error) {
	var o Output
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := o.add(line); err != nil {
			return Output{}, fmt.Errorf("line %d, %.120q: %w", n+1, line, err)
		}
	}
	return o, nil
}

// add decodes one line into o, by the fields it has.
func (o *Output) add(line []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return err
	}
	switch {
	case fields["late"] != nil:
		var l struct {
			Late event `json:"late"`
		}
		if err := strict(line, &l); err != nil {
			return err
		}
		o.Late = append(o.Late, l.Late.kit())
	case fields["lateRule"] != nil:
		var l struct {
			LateRule Rule `json:"lateRule"`
		}
		if err := strict(line, &l); err != nil {
			return err
		}
		o.LateRules = append(o.LateRules, l.LateRule)
	case fields["result"] != nil:
		var a alert
		if err := strict(line, &a); err != nil {
			return err
		}
		o.Alerts = append(o.Alerts, Alert{a.Result.kit(), a.Rule})
	case fields["start"] != nil:
		var r result
		if err := strict(line, &r); err != nil {
			return err
		}
		o.Results = append(o.Results, r.kit())
	case fields["id"] != nil:
		var e event
		if err := strict(line, &e); err != nil {
			return err
		}
		o.Sums = append(o.Sums, e.kit())
	default:
		return errors.New("not a result, an event, an alert, a late event or a late rule")
	}
	return nil
}

// strict decodes data into v, refusing a field v does not have.
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// WriteEvents writes events as a job reads them, one JSON object a line.
func WriteEvents(w io.Writer, events []kit.Event) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, e := range events {
		if err := enc.Encode(toEvent(e)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadEvents reads events as a job does: one JSON object a line, blank
// lines skipped, an unknown field an error.
func ReadEvents(r io.Reader) ([]kit.Event, error) {
	var out []kit.Event
	err := readLines(r, func(line []byte) error {
		var e event
		if err := strict(line, &e); err != nil {
			return err
		}
		out = append(out, e.kit())
		return nil
	})
	return out, err
}

// WriteRules writes rules as stage 11's job reads them from --rules.
func WriteRules(w io.Writer, rules []Rule) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, r := range rules {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadRules reads rules as stage 11's job does.
func ReadRules(r io.Reader) ([]Rule, error) {
	var out []Rule
	err := readLines(r, func(line []byte) error {
		var x Rule
		if err := strict(line, &x); err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// readLines calls fn for each line of r that is not blank; an error names
// the line.
func readLines(r io.Reader, fn func([]byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}
