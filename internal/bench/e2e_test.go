//go:build e2e

package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/coursedir"
)

// TestEndToEndScalingRatiosExposeScanning runs de bench's stage 01 and 03
// benchmarks, for real, on a scratch course whose lab/ is the fixture in
// testdata/scanning, in two versions: one that visits every open and every
// fired window on each event, and one that fires in order but visits every
// fired window on each event to find the expired ones. The scanning ratios
// must be an order of magnitude above 1, the others (the fixture's when it
// fires in order, and the reference's) well below that. Orders of
// magnitude, not percentages: the machine is shared, and a processor with
// more state pays more to its garbage collector and the caches even when
// it never scans (1–3× on a busy machine).
func TestEndToEndScalingRatiosExposeScanning(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	open, expiring := comparisonOf(t, "BenchmarkDe01/open-windows"), comparisonOf(t, "BenchmarkDe03/expiring-windows")

	for _, tc := range []struct {
		name       string
		scanToFire bool // and so a scaling ratio on open-windows far above 1
	}{
		{"scans to fire and to expire", true},
		{"fires in order, scans to expire", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := scanningCourse(t, tc.scanToFire)
			m, err := Run(context.Background(), Options{Root: root, Stage: 3, All: true, Count: 1})
			require.NoError(t, err)

			ratio := func(c Comparison, pkg string) float64 {
				r, ok := c.Ratio(m, pkg)
				require.True(t, ok, "%s: no ratio for %s", c.Title, pkg)
				t.Logf("%s, %s: %.2f× (%.0f → %.0f %s)", c.Title, pkg, r.Mean, r.Baseline, r.Subject, c.Subject.Unit)
				return r.Mean
			}
			for _, c := range []Comparison{open, expiring} {
				ref := ratio(c, RefPkg)
				assert.Less(t, ref, 5.0, "%s: the reference keeps its cost per event flat", c.Title)
			}
			lab := ratio(open, LabPkg)
			if tc.scanToFire {
				assert.GreaterOrEqual(t, lab, 10.0, "%s: a processor that visits every open window per event", open.Title)
			} else {
				assert.Less(t, lab, 5.0, "%s: a processor that fires in order", open.Title)
			}
			assert.GreaterOrEqual(t, ratio(expiring, LabPkg), 10.0, "%s: a processor that visits every fired window per event", expiring.Title)
		})
	}
}

// scanningCourse returns a scratch copy of the course whose lab/ is the
// scanning fixture, set to fire by scanning or in order.
func scanningCourse(t *testing.T, scanToFire bool) string {
	t.Helper()
	root, err := coursedir.FindRoot(".")
	require.NoError(t, err)
	dst := t.TempDir()
	require.NoError(t, coursedir.CopyForSuites(root, dst))
	src, err := os.ReadFile(filepath.Join("testdata", "scanning", "windows.go"))
	require.NoError(t, err)
	fixture := string(src)
	if !scanToFire {
		const on = "scanToFire   = true"
		require.Contains(t, fixture, on)
		fixture = strings.Replace(fixture, on, "scanToFire   = false", 1)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dst, "lab"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dst, "lab", "windows.go"), []byte(fixture), 0o644))
	return dst
}
