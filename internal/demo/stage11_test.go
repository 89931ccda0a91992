package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo11MatchesGolden pins stage 11's demo as TestDemosMatchGolden pins
// the core's: go test ./internal/demo -update rewrites testdata/11.golden.
func TestDemo11MatchesGolden(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Run(11, Options{Out: &out}))
	golden := filepath.Join("testdata", "11.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./internal/demo -update to create it")
	assert.Equal(t, string(want), out.String(), "demo 11 changed; go test ./internal/demo -update accepts the change")
	assert.Contains(t, out.String(), "timeline:", "every event-time demo draws a timeline")
}
