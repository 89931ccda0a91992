//go:build lab || solution

package sliding

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
)

// FuzzRestoreSlidingProcessor certifies that RestoreSlidingProcessor never panics on any input, and whatever it accepts snapshots and restores again to the same bytes.
//
// `go test` runs the seed corpus, made at run time by your code: snapshots
// your Snapshot writes (new processors, ones cut from seeded runs with
// awkward keys, IDs and values, late corrections and Flush, windows of
// several shapes), their prefixes, copies with a byte flipped or a byte
// appended, a stage 04 snapshot, and bytes that are no snapshot at all. To
// search for more:
//
//	go test -tags lab -run '^$' -fuzz '^FuzzRestoreSlidingProcessor$' ./stages/09-sliding
func FuzzRestoreSlidingProcessor(f *testing.F) {
	defer suite.Recover(f)
	var snaps [][]byte
	rnd := suite.Rand(f)
	for _, c := range oracleConfigs {
		cfg := SlidingConfig{Size: c.size, Slide: c.slide, WatermarkDelay: 6, AllowedLateness: c.size / 2}
		snaps = append(snaps, snapshotOf(f, newSliding(f, cfg)))
		ops := randomOps(rnd, c.size, cfg.WatermarkDelay, cfg.WatermarkDelay+2*c.size)
		for _, cut := range []int{len(ops) / 3, len(ops) - 3, len(ops)} {
			s := newSliding(f, cfg)
			windowtest.Replay(s, ops[:cut])
			snaps = append(snaps, snapshotOf(f, s))
		}
	}
	windowtest.AddSnapshotSeeds(f, snaps)
	p, err := NewProcessor(Config{WindowSize: 10, AllowedLateness: 5})
	if err != nil {
		f.Fatalf("NewProcessor: %v", err)
	}
	p.Process(ev("e1", "a", 5, 1))
	tumbling, err := p.Snapshot()
	if err != nil {
		f.Fatalf("Processor.Snapshot (stage 04): %v", err)
	}
	f.Add(tumbling) // tumbling-window state, not a sliding snapshot
	f.Add([]byte("not a snapshot at all"))

	f.Fuzz(func(t *testing.T, data []byte) {
		defer suite.Recover(t)
		s := windowtest.CheckRestoreInput(t, "RestoreSlidingProcessor("+suite.HexHead(data)+")",
			func() (*SlidingProcessor, error) { return RestoreSlidingProcessor(data) }, snapshotOf, restoreOf,
			"a window, a key's tally, a seen ID, the watermark, the slide")
		if s == nil {
			return
		}
		s.Process(ev("fuzz", "k", 0, 1))
		s.AdvanceWatermark(100)
		s.Flush()
		s.Late()
	})
}
