package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRelevant pins which changes re-run the tests: a Go file the go tool
// builds, never an editor's temporary, backup or swap file.
func TestRelevant(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"windows.go", true},
		{"sub/helper.go", true},
		{".windows.go.swp", false},
		{"windows.go~", false},
		{"windows.go.swp", false},
		{"#windows.go#", false},
		{"4913", false},
		{"x.tmp", false},
		{"windows.go___jb_tmp___", false},
		{"windows.go___jb_old___", false},
		{"windows.go123456789", false},
		{"windows.go.orig", false},
		{"_scratch.go", false},
		{".#windows.go", false},
		{"notes.txt", false},
		{".go", false},
	} {
		assert.Equal(t, tc.want, Relevant(tc.name), tc.name)
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prev, cur map[string]Outcome
		want      []Change
	}{
		{"nothing changed", map[string]Outcome{"a": Passed, "b": Failed}, map[string]Outcome{"a": Passed, "b": Failed}, nil},
		{"fixed and broke", map[string]Outcome{"a": Failed, "b": Passed}, map[string]Outcome{"a": Passed, "b": Failed},
			[]Change{{"a", Failed, Passed}, {"b", Passed, Failed}}},
		{"new test", map[string]Outcome{}, map[string]Outcome{"a": Failed}, []Change{{"a", Other, Failed}}},
		{"gone test", map[string]Outcome{"a": Passed}, map[string]Outcome{}, []Change{{"a", Passed, Other}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Diff(tc.prev, tc.cur))
		})
	}
}

// fakeClock hands out timers the test fires by hand.
type fakeClock struct{ timers chan chan time.Time }

func (c *fakeClock) after(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.timers <- ch
	return ch
}

func TestDebounceBatchesABurst(t *testing.T) {
	in := make(chan string)
	clock := &fakeClock{timers: make(chan chan time.Time, 16)}
	out := Debounce(in, 200*time.Millisecond, clock.after)
	in <- "b.go"
	in <- "a.go"
	in <- "b.go"
	// Each name arms a fresh timer. Take all three by blocking receives:
	// Debounce arms the third only after the third send has returned, so
	// counting what is already buffered would race with it.
	var timers [3]chan time.Time
	for i := range timers {
		timers[i] = <-clock.timers
	}
	timers[0] <- time.Now() // a superseded timer fires: nothing is sent
	timers[2] <- time.Now() // quiet long enough: only the newest timer counts
	assert.Equal(t, []string{"a.go", "b.go"}, <-out)
	in <- "c.go"
	close(in)
	assert.Equal(t, []string{"c.go"}, <-out, "pending names are flushed when the source closes")
	_, ok := <-out
	assert.False(t, ok)
}

// TestSourcesSeeASave saves a file and expects each source to report it
// well within a second: the deadline is a bound, not a sleep.
func TestSourcesSeeASave(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(dir string) (Source, error)
	}{
		{"notify", Notify},
		{"poll", func(dir string) (Source, error) { return Poll(dir, 50*time.Millisecond) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "windows.go")
			require.NoError(t, os.WriteFile(file, []byte("package lab\n"), 0o644))
			src, err := tc.open(dir)
			require.NoError(t, err)
			defer src.Close()
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".windows.go.swp"), []byte("x"), 0o644))
			require.NoError(t, os.WriteFile(file, []byte("package lab // saved\n"), 0o644))
			deadline := time.After(time.Second)
			for {
				select {
				case name := <-src.Changes():
					require.Equal(t, "windows.go", name, "hidden swap files are ignored")
					return
				case <-deadline:
					t.Fatal("no change reported within a second")
				}
			}
		})
	}
}

func TestPollRejectsBadInterval(t *testing.T) {
	_, err := Poll(t.TempDir(), 0)
	assert.ErrorContains(t, err, "poll interval must be positive")
}
