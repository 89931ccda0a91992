//go:build solution

package stagebench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
	"github.com/flk-byo/course/solutions/pebblestate"
)

// reference12 is the reference's stage 12 API, as the adapter hands a
// package's to the benchmarks.
var reference12 = API{
	NewBackendProcessor: func(c Config, be Backend) (BackendProcessor, error) {
		return solutions.NewBackendProcessor(solutions.Config(c), be.(solutions.StateBackend))
	},
	NewHeapBackend: func() Backend { return solutions.NewHeapBackend() },
	OpenPebbleBackend: func(dir string, budget int64) (Backend, error) {
		return pebblestate.OpenPebbleBackend(dir, budget)
	},
}

// TestBackendsDoTheSameWork checks what the stage 12 benchmarks divide: on
// the held stream they run, and on a stream shaped as the throughput one
// (see streamLike) but a quarter as long, 50 windows firing, so that the
// test stays fast under -race, the BackendProcessor on the heap backend
// and on Pebble, as openBackend opens them, return call by call what the reference's stage 01 Processor
// returns; and the held stream fires nothing until Flush, which returns
// one result per window and key, so the memory and checkpoint benchmarks
// measure that many open windows.
func TestBackendsDoTheSameWork(t *testing.T) {
	streams := []struct {
		name   string
		cfg    Config
		events []kit.Event
	}{
		{"throughput", Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder}, streamLike(bench.BackendEvents / 4)},
		{"held", heldConfig(), heldEvents(0, bench.BackendWindows*bench.BackendKeys)},
	}
	for _, s := range streams {
		ref, err := solutions.NewProcessor(solutions.Config(s.cfg))
		require.NoError(t, err)
		want := run(ref, s.events)
		for _, kind := range backendKinds {
			be, done := openBackend(t, reference12, kind)
			got := run(newBackendProcessor(t, reference12, s.cfg, be), s.events)
			done(t)
			require.Equal(t, len(want), len(got), "%s stream, %s backend: as many calls", s.name, kind)
			for i := range want {
				require.Equal(t, want[i], got[i], "%s stream, %s backend: call %d (the last is Flush)", s.name, kind, i)
			}
		}
		if s.name == "held" {
			for i, out := range want[:len(want)-1] {
				require.Empty(t, out, "held stream: event %d fires nothing", i)
			}
			assert.Len(t, want[len(want)-1], bench.BackendWindows*bench.BackendKeys, "held stream: Flush fires every window of every key")
		}
	}
}

// TestHeldEventsContinueOneStream checks that the checkpoint benchmark's
// later batches of events go on the stream of its first: new IDs, over
// the same windows and keys.
func TestHeldEventsContinueOneStream(t *testing.T) {
	all := heldEvents(0, bench.BackendIDs)
	for i := range bench.NextCheckpoints {
		all = append(all, heldEvents(bench.BackendIDs+i*bench.BackendChanged, bench.BackendChanged)...)
	}
	assert.Equal(t, heldEvents(0, bench.BackendIDs+bench.NextCheckpoints*bench.BackendChanged), all)
	seen := map[string]bool{}
	windows, keys := map[int64]bool{}, map[string]bool{}
	for _, e := range all {
		assert.False(t, seen[e.ID], "IDs are distinct")
		seen[e.ID] = true
		windows[e.TS] = true
		keys[e.Key] = true
	}
	assert.Len(t, windows, bench.BackendWindows)
	assert.Len(t, keys, bench.BackendKeys)
}
