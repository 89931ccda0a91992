//go:build e2e

package refview

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/gotest"
)

// TestEndToEndEveryViewPassesItsStages checks that, for each ready stage N,
// the reference as `de solution NN` shows it passes the suites of stages
// 1..N: the views at N of every file the catalogue lists for those stages,
// renamed to package lab, put where a learner's lab/ is (through go test's
// -overlay, so nothing is written into the course). TestEveryViewCompiles
// proves a view compiles; this proves it is correct, so a region left out
// at stage N is code no test of stages 1..N needs, and a learner who copies
// what de solution shows has a passing stage. It builds and runs every
// stage's suite up to eight times: about a minute on 2 cores, so it runs
// with the end-to-end scripts (-tags e2e).
func TestEndToEndEveryViewPassesItsStages(t *testing.T) {
	ref := loadReference(t)
	root, err := filepath.Abs(courseRoot)
	require.NoError(t, err)
	for _, st := range ref.cat.Ready() {
		t.Run(st.ID(), func(t *testing.T) {
			tmp := t.TempDir()
			replace := map[string]string{}
			var pkgs []string
			for _, earlier := range ref.cat.ReadyThrough(st.Number) {
				pkgs = append(pkgs, "./stages/"+earlier.ID())
				for _, name := range earlier.Solution {
					var src string
					if f, ok := ref.files[name]; ok {
						src = strings.Replace(string(f.At(st.Number).Source()), "package solutions", "package lab", 1)
					} else {
						// A file in a package of its own (pebblestate/pebble.go)
						// has no stage regions: de solution shows it whole,
						// and it is the learner's lab/<its name>.
						data, err := os.ReadFile(filepath.Join(referenceDir, filepath.FromSlash(name)))
						require.NoError(t, err)
						src = strings.Replace(string(data), "package "+path.Base(path.Dir(name)), "package lab", 1)
					}
					copied := filepath.Join(tmp, path.Base(name))
					require.NoError(t, os.WriteFile(copied, []byte(src), 0o644))
					replace[filepath.Join(root, "lab", path.Base(name))] = copied
				}
			}
			overlay, err := gotest.WriteOverlay(tmp, replace)
			require.NoError(t, err)

			res, err := gotest.Run(context.Background(), gotest.Options{
				Dir: root, Tags: "lab", Packages: pkgs, Overlay: overlay, Timeout: 2 * time.Minute,
			})
			require.NoError(t, err)
			for _, pkg := range pkgs {
				p := res.Package(pkg)
				require.NotNil(t, p, "go test reported nothing for %s", pkg)
				if p.OK() {
					continue
				}
				var failed []string
				for _, tc := range p.Tests {
					if tc.Status != gotest.Pass && tc.Status != gotest.Skip {
						failed = append(failed, fmt.Sprintf("%s (%s)", tc.Name, tc.Status))
					}
				}
				t.Errorf("the reference as of stage %s fails %s: %s\n%s%s%s", st.ID(), pkg, strings.Join(failed, ", "), p.BuildError, p.TimedOut, p.Crash)
			}
		})
	}
}
