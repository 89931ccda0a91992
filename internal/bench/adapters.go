package bench

import (
	"fmt"
	"strings"
)

// adapters holds, for each stage with benchmarks, the file that Run adds
// to package lab and to package solutions: BenchmarkDeNN, which hands
// stagebench.Run the package's own functions of the stages up to NN. PKG
// stands for the package's name. Stage 01's file also holds what the later
// files share.
var adapters = map[int]string{
	1: `package PKG

import (
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
)

// deBenchNew is NewProcessor, as stagebench calls it.
func deBenchNew(c stagebench.Config) (stagebench.Processor, error) {
	p, err := NewProcessor(Config{WindowSize: c.WindowSize, WatermarkDelay: c.WatermarkDelay, AllowedLateness: c.AllowedLateness})
	if err != nil {
		return nil, err
	}
	return p, nil
}

func BenchmarkDe01(b *testing.B) { stagebench.Run(b, 1, stagebench.API{New: deBenchNew}) }
`,
	3: `package PKG

import (
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
)

func BenchmarkDe03(b *testing.B) { stagebench.Run(b, 3, stagebench.API{New: deBenchNew}) }
`,
	4: `package PKG

import (
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
)

func BenchmarkDe04(b *testing.B) {
	stagebench.Run(b, 4, stagebench.API{
		New:      deBenchNew,
		Snapshot: func(p stagebench.Processor) ([]byte, error) { return p.(*Processor).Snapshot() },
		Restore: func(snap []byte) (stagebench.Processor, error) {
			p, err := RestoreProcessor(snap)
			if err != nil {
				return nil, err
			}
			return p, nil
		},
	})
}
`,
	9: `package PKG

import (
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
)

func BenchmarkDe09(b *testing.B) {
	stagebench.Run(b, 9, stagebench.API{
		New: deBenchNew,
		NewSliding: func(c stagebench.SlidingConfig) (stagebench.Processor, error) {
			s, err := NewSlidingProcessor(SlidingConfig{Size: c.Size, Slide: c.Slide, WatermarkDelay: c.WatermarkDelay, AllowedLateness: c.AllowedLateness})
			if err != nil {
				return nil, err
			}
			return s, nil
		},
	})
}
`,
	10: `package PKG

import (
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
)

func BenchmarkDe10(b *testing.B) {
	stagebench.Run(b, 10, stagebench.API{
		NewSeenTTL: func(c stagebench.Config, seenTTL int64) (stagebench.SeenTTLProcessor, error) {
			p, err := NewSeenTTLProcessor(Config{WindowSize: c.WindowSize, WatermarkDelay: c.WatermarkDelay, AllowedLateness: c.AllowedLateness}, seenTTL)
			if err != nil {
				return nil, err
			}
			return p, nil
		},
	})
}
`,
	11: `package PKG

import (
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// deBenchParallelConfig is c as the package's ParallelConfig.
func deBenchParallelConfig(c stagebench.ParallelConfig) ParallelConfig {
	return ParallelConfig{
		Processor:      Config{WindowSize: c.Processor.WindowSize, WatermarkDelay: c.Processor.WatermarkDelay, AllowedLateness: c.Processor.AllowedLateness},
		Parallelism:    c.Parallelism,
		MaxParallelism: c.MaxParallelism,
	}
}

// deBenchBroadcast is a BroadcastProcessor as stagebench drives it: each
// call returns how many alerts the package's returned.
type deBenchBroadcast struct{ p *BroadcastProcessor }

func (d deBenchBroadcast) ProcessEvent(e kit.Event) int { return len(d.p.ProcessEvent(e)) }
func (d deBenchBroadcast) ProcessRule(r stagebench.Rule) {
	d.p.ProcessRule(Rule{Prefix: r.Prefix, Threshold: r.Threshold, TS: r.TS})
}
func (d deBenchBroadcast) AdvanceRuleWatermark(wm int64) int { return len(d.p.AdvanceRuleWatermark(wm)) }
func (d deBenchBroadcast) Flush() int                        { return len(d.p.Flush()) }

func BenchmarkDe11(b *testing.B) {
	stagebench.Run(b, 11, stagebench.API{
		NewParallel: func(c stagebench.ParallelConfig) (stagebench.Processor, error) {
			p, err := NewParallelProcessor(deBenchParallelConfig(c))
			if err != nil {
				return nil, err
			}
			return p, nil
		},
		NewBroadcast: func(c stagebench.ParallelConfig) (stagebench.BroadcastProcessor, error) {
			p, err := NewBroadcastProcessor(deBenchParallelConfig(c))
			if err != nil {
				return nil, err
			}
			return deBenchBroadcast{p}, nil
		},
	})
}
`,
	12: `package PKG

import (
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"PEBBLEIMPORT
)

func BenchmarkDe12(b *testing.B) {
	stagebench.Run(b, 12, stagebench.API{
		NewBackendProcessor: func(c stagebench.Config, be stagebench.Backend) (stagebench.BackendProcessor, error) {
			p, err := NewBackendProcessor(Config{WindowSize: c.WindowSize, WatermarkDelay: c.WatermarkDelay, AllowedLateness: c.AllowedLateness}, be.(StateBackend))
			if err != nil {
				return nil, err
			}
			return p, nil
		},
		NewHeapBackend: func() stagebench.Backend { return NewHeapBackend() },
		OpenPebbleBackend: func(dir string, budget int64) (stagebench.Backend, error) {
			pb, err := PEBBLEOPEN(dir, budget)
			if err != nil {
				return nil, err
			}
			return pb, nil
		},
	})
}
`,
}

// pebbleOpen is, for each package, where stage 12's adapter finds the
// card's OpenPebbleBackend, and the import that needs (PEBBLEIMPORT and
// PEBBLEOPEN in its source): in package lab beside the rest, as the card
// lays it out; in the reference its own package, pebblestate, so that only
// what runs a Pebble backend links Pebble.
var pebbleOpen = map[string]struct{ imp, open string }{
	"lab":       {"", "OpenPebbleBackend"},
	"solutions": {"\n\t\"github.com/flk-byo/course/solutions/pebblestate\"", "pebblestate.OpenPebbleBackend"},
}

// adapter returns the source of stage's file for package pkg.
func adapter(pkg string, stage int) string {
	src, ok := adapters[stage]
	if !ok {
		panic(fmt.Sprintf("bench: stage %02d has benchmarks but no adapter", stage))
	}
	p := pebbleOpen[pkg]
	return strings.NewReplacer("PKG", pkg, "PEBBLEIMPORT", p.imp, "PEBBLEOPEN", p.open).Replace(src)
}
