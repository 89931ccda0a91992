package skeletoncheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/catalog"
)

// TestSkeletonsReportsATestThatPassesOnItsSkeleton checks the checker on a
// fixture course whose one stage has a test that passes on the untouched
// skeleton, and one that fails there as it should: the stage must be
// reported unsound, naming the test that certifies nothing.
func TestSkeletonsReportsATestThatPassesOnItsSkeleton(t *testing.T) {
	root, err := filepath.Abs("testdata/passing-test")
	require.NoError(t, err)
	cat, err := catalog.Load(os.DirFS(filepath.Join(root, "stages")))
	require.NoError(t, err)
	results, err := Skeletons(context.Background(), root, cat, cat.Ready(), nil)
	require.NoError(t, err)
	require.Len(t, results, 1)
	r := results[0]
	assert.Equal(t, 2, r.Tests, "both tests of the stage ran")
	assert.Equal(t, 1, r.Failed, "TestAnswerIs42 failed on the skeleton, as it should")
	require.Len(t, r.Problems, 1, "one problem: %q", r.Problems)
	assert.True(t, strings.HasPrefix(r.Problems[0], "TestCertifiesNothing pass on the untouched skeleton"), r.Problems[0])
}
