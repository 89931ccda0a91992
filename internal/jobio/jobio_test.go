package jobio

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/flk-byo/course/kit"
)

// TestWriteThenParseRoundTrips certifies that Parse reads back every kind
// of line Write prints (results, sums, alerts, late events, late rules),
// each in its order.
func TestWriteThenParseRoundTrips(t *testing.T) {
	o := Output{
		Results:   []kit.Result{{Key: "a", Start: 0, End: 10, Count: 2, Sum: 3}, {Key: "a", Start: 0, End: 10, Count: -1, Sum: -1, IsUpdate: true}},
		Sums:      []kit.Event{{ID: "e1", Key: "alice", Value: 10}},
		Alerts:    []Alert{{Result: kit.Result{Key: "eu-1", End: 10, Count: 1, Sum: 7}, Rule: Rule{Prefix: "eu-", Threshold: 5, TS: 8}}},
		Late:      []kit.Event{{ID: "e6", Key: "a", TS: 8, Value: 6}},
		LateRules: []Rule{{Prefix: "eu-", Threshold: 100, TS: 9}},
	}
	var buf bytes.Buffer
	if err := o.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("Parse(%q): %v", buf.String(), err)
	}
	if !reflect.DeepEqual(got, o) {
		t.Errorf("Parse(Write(o)) = %+v, want %+v", got, o)
	}
}

// TestParseNamesALineItCannotRead certifies that a line that is no job's
// output, or has a field the job does not print, is an error naming it.
func TestParseNamesALineItCannotRead(t *testing.T) {
	for _, line := range []string{`{"hello":1}`, `{"key":"a","start":0,"end":10,"count":1,"sum":1,"update":false,"extra":1}`, `not json`} {
		_, err := Parse([]byte("\n" + line + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("Parse(%q) = %v, want an error naming line 2", line, err)
		}
	}
}

// TestEventsRoundTrip certifies that ReadEvents reads what WriteEvents
// writes, skipping blank lines, and refuses an unknown field.
func TestEventsRoundTrip(t *testing.T) {
	events := []kit.Event{{ID: "e1", Key: "a", TS: -1, Value: 1}, {ID: "", Key: "ключ", TS: 3, Value: -2}}
	var buf bytes.Buffer
	if err := WriteEvents(&buf, events); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEvents(strings.NewReader("\n" + buf.String() + "\n"))
	if err != nil || !reflect.DeepEqual(got, events) {
		t.Errorf("ReadEvents(WriteEvents(events)) = %v, %v; want %v", got, err, events)
	}
	if _, err := ReadEvents(strings.NewReader(`{"id":"e1","key":"a","ts":1,"value":1,"x":2}`)); err == nil {
		t.Error("ReadEvents accepted an unknown field")
	}
}
