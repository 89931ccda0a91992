package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo10MatchesGolden pins stage 10's demo as TestDemosMatchGolden
// pins stages 1 to 8: go test ./internal/demo -update rewrites it too.
func TestDemo10MatchesGolden(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Run(10, Options{Out: &out}))
	golden := filepath.Join("testdata", "10.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./internal/demo -update to create it")
	assert.Equal(t, string(want), out.String(), "demo 10 changed; go test ./internal/demo -update accepts the change")
	assert.Contains(t, out.String(), "timeline:", "every event-time demo draws a timeline")
}
