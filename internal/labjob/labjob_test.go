package labjob

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/kit"
)

// TestRunReportsTheLabInOneLine certifies a driver's protocol: the lab's
// output as the jobs print it and exit 0; a skeleton's TODO panic as the
// one line "stage NN's lab is not written yet: run de test", another panic
// or an error as one line, exit 1, never a stack trace.
func TestRunReportsTheLabInOneLine(t *testing.T) {
	input := `{"id":"e1","key":"a","ts":1,"value":1}` + "\n"
	cases := []struct {
		name           string
		run            func(Input) (jobio.Output, error)
		status         int
		stdout, stderr string
	}{
		{"output", func(in Input) (jobio.Output, error) {
			return jobio.Output{Results: []kit.Result{{Key: in.Stream.Events[0].Key, Start: 0, End: 10, Count: 1, Sum: 1}}}, nil
		}, 0, `{"key":"a","start":0,"end":10,"count":1,"sum":1,"update":false}` + "\n", ""},
		{"TODO", func(Input) (jobio.Output, error) { panic("TODO: validate cfg and return an empty Processor") },
			1, "", "stage 01's lab is not written yet: run de test\n"},
		{"another panic", func(Input) (jobio.Output, error) { panic("index out of range [3] with length 3") },
			1, "", "stage 01's lab: panic: index out of range [3] with length 3 (de test shows where)\n"},
		{"an error", func(Input) (jobio.Output, error) { return jobio.Output{}, errors.New("window size must be\npositive") },
			1, "", "stage 01's lab: window size must be positive\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := Run(1, nil, strings.NewReader(input), &stdout, &stderr, c.run)
			if status != c.status || stdout.String() != c.stdout || stderr.String() != c.stderr {
				t.Errorf("Run: status %d, stdout %q, stderr %q; want %d, %q, %q", status, stdout.String(), stderr.String(), c.status, c.stdout, c.stderr)
			}
		})
	}
}

// TestWatermarksTrailTheLargestTimestamp certifies the drivers' upstream
// watermark: the largest timestamp seen minus the delay, never going back,
// saturating at math.MinInt64.
func TestWatermarksTrailTheLargestTimestamp(t *testing.T) {
	w := Watermarks{Delay: 5}
	for _, c := range []struct{ ts, want int64 }{{10, 5}, {3, 5}, {12, 7}, {12, 7}} {
		if got := w.After(c.ts); got != c.want {
			t.Errorf("After(%d) = %d, want %d", c.ts, got, c.want)
		}
	}
	low := Watermarks{Delay: 5}
	if got := low.After(math.MinInt64 + 2); got != math.MinInt64 {
		t.Errorf("After(MinInt64+2) with delay 5 = %d, want math.MinInt64", got)
	}
}
