package demo

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/term"
	"github.com/flk-byo/course/internal/testcourse"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the demos' output")

// TestDemosMatchGolden pins every demo's output: the demos are
// deterministic, and a change to one (or to the reference, or to
// kit.Timeline) shows up as a diff. go test ./internal/demo -update
// rewrites the files after a deliberate change.
func TestDemosMatchGolden(t *testing.T) {
	for _, n := range slices.Sorted(maps.Keys(demos)) {
		t.Run(fmt.Sprintf("%02d", n), func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, Run(n, Options{Out: &out}))
			golden := filepath.Join("testdata", fmt.Sprintf("%02d.golden", n))
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./internal/demo -update to create it")
			assert.Equal(t, string(want), out.String(), "demo %02d changed; go test ./internal/demo -update accepts the change", n)
			if n != 2 { // stage 02 has no event time
				assert.Contains(t, out.String(), "timeline:", "every event-time demo draws a timeline")
			}
		})
	}
}

func TestDemoOptions(t *testing.T) {
	testcourse.NeedsReference(t)
	errStop := errors.New("stop")
	for _, c := range []struct {
		name    string
		stage   int
		opts    func(*bytes.Buffer, *int) Options
		wantErr string
		check   func(t *testing.T, out string, pauses int)
	}{
		{name: "no such stage", stage: 99, opts: func(b *bytes.Buffer, _ *int) Options { return Options{Out: b} }, wantErr: "stage 99 has no demo"},
		{name: "pauses between steps", stage: 1, opts: func(b *bytes.Buffer, p *int) Options {
			return Options{Out: b, Pause: func() error { *p++; return nil }}
		}, check: func(t *testing.T, out string, pauses int) {
			assert.Equal(t, strings.Count(out, "\nStep ")-1, pauses, "one pause before each step after the first")
		}},
		{name: "a pause error ends the demo", stage: 3, opts: func(b *bytes.Buffer, _ *int) Options {
			return Options{Out: b, Pause: func() error { return errStop }}
		}, wantErr: "stop", check: func(t *testing.T, out string, _ int) {
			assert.NotContains(t, out, "Step 2")
		}},
		{name: "colored headings", stage: 2, opts: func(b *bytes.Buffer, _ *int) Options {
			return Options{Out: b, Style: term.Style{Color: true}}
		}, check: func(t *testing.T, out string, _ int) {
			assert.Contains(t, out, "\x1b[1mDemo of stage 02")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			pauses := 0
			err := Run(c.stage, c.opts(&out, &pauses))
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
			} else {
				require.NoError(t, err)
			}
			if c.check != nil {
				c.check(t, out.String(), pauses)
			}
		})
	}
	for n := 1; n <= 12; n++ {
		assert.True(t, Has(n), "every stage has a demo: stage %d", n)
	}
	assert.False(t, Has(0))
	assert.False(t, Has(13))
}
