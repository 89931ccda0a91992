package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo12MatchesGolden pins demo 12's output, as TestDemosMatchGolden
// does stages 01–08's (go test ./internal/demo -update rewrites it): the
// keys Pebble holds are in key order and the checkpoint is named by
// nothing that changes from run to run, so the demo is deterministic.
func TestDemo12MatchesGolden(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Run(12, Options{Out: &out}))
	golden := filepath.Join("testdata", "12.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./internal/demo -update to create it")
	assert.Equal(t, string(want), out.String(), "demo 12 changed; go test ./internal/demo -update accepts the change")
	assert.Contains(t, out.String(), "timeline:", "every event-time demo draws a timeline")
}
