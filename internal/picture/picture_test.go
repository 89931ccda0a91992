package picture

import (
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/flk-byo/course/kit"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/")

func ev(id, key string, ts, v int64) kit.Event { return kit.Event{ID: id, Key: key, TS: ts, Value: v} }

func res(key string, start, end, count, sum int64, update bool) kit.Result {
	return kit.Result{Key: key, Start: start, End: end, Count: count, Sum: sum, IsUpdate: update}
}

func event(e kit.Event, wm int64, out ...kit.Result) Step {
	return Step{Op: OpEvent, Event: e, Partition: -1, Watermark: wm, Emitted: out}
}

// Samples are one run of each kind a page draws, shared by the golden
// test and the browser test (browser_test.go).
func Samples() map[string]Run {
	none := int64(math.MinInt64)
	const hour = 3_600_000
	return map[string]Run{
		// Stage 03: tumbling windows with lateness; a duplicate, a
		// correction, a straggler to the side output, and a wrong update.
		"tumbling": {
			Title:   "TestLateEventWithinLatenessRefires: Process(e5 a@4=1)",
			Note:    "Process(e5 a@4=1) returned\n  a [0,10) count=3 sum=4\nwant\n  a [0,10) count=3 sum=4 (update)",
			Windows: Windows{Size: 10, Lateness: 5},
			Steps: []Step{
				event(ev("e1", "a", 1, 1), -4),
				event(ev("e2", "b", 3, 2), -2),
				event(ev("e2", "b", 3, 2), -2),
				event(ev("e3", "a", 12, 2), 7),
				event(ev("e4", "a", 17, 1), 12, res("a", 0, 10, 2, 3, false), res("b", 0, 10, 1, 2, false)),
				event(ev("e5", "a", 4, 1), 12, res("a", 0, 10, 3, 4, false)),
				event(ev("e6", "b", 2, 5), 12),
				event(ev("e7", "a", 26, 1), 21),
				event(ev("a-rather-long-event-id", "a-long-key", 27, 1234567), 22),
				{Op: OpFlush, Partition: -1, Watermark: math.MaxInt64, Emitted: []kit.Result{res("a", 10, 20, 2, 3, false), res("a", 20, 30, 1, 1, false), res("a-long-key", 20, 30, 1, 1234567, false)}},
			},
			Late: []kit.Event{ev("e6", "b", 2, 5)},
			Want: []kit.Result{res("a", 0, 10, 2, 3, false), res("b", 0, 10, 1, 2, false), res("a", 0, 10, 3, 4, true), res("a", 10, 20, 2, 3, false), res("a", 20, 30, 1, 1, false), res("a-long-key", 20, 30, 1, 1234567, false)},
		},
		// Stage 08: a late event bridges two sessions; the merge retracts
		// both.
		"sessions": {
			Title:   "TestLateBridgeMergesSessions",
			Windows: Windows{Gap: 5, Lateness: 20},
			Steps: []Step{
				event(ev("e1", "k", 0, 1), -1),
				event(ev("e2", "k", 10, 1), 9),
				event(ev("e3", "k", 22, 1), 21, res("k", 0, 5, 1, 1, false), res("k", 10, 15, 1, 1, false)),
				event(ev("e4", "k", 5, 1), 21, res("k", 0, 5, -1, -1, true), res("k", 10, 15, -1, -1, true), res("k", 0, 15, 3, 3, false)),
				{Op: OpFlush, Partition: -1, Watermark: math.MaxInt64, Emitted: []kit.Result{res("k", 22, 27, 1, 1, false)}},
			},
		},
		// Stage 09: one event in several sliding windows, a late one
		// that corrects three of them in the wrong order, and a watermark
		// past every window.
		"sliding": {
			Title:   "TestCorrectionsPerWindow",
			Windows: Windows{Size: 6, Slide: 2, Lateness: 100},
			Steps: []Step{
				event(ev("e1", "a", 1, 1), 0),
				event(ev("e2", "b", 1, 1), 0),
				{Op: OpWatermark, Partition: -1, Watermark: 20, Emitted: []kit.Result{res("a", -4, 2, 1, 1, false), res("b", -4, 2, 1, 1, false), res("a", -2, 4, 1, 1, false), res("b", -2, 4, 1, 1, false), res("a", 0, 6, 1, 1, false), res("b", 0, 6, 1, 1, false)}},
				event(ev("e3", "b", 0, 5), 20, res("b", 0, 6, 2, 6, true), res("b", -2, 4, 2, 6, true), res("b", -4, 2, 2, 6, true)),
			},
			Want: []kit.Result{res("a", -4, 2, 1, 1, false), res("b", -4, 2, 1, 1, false), res("a", -2, 4, 1, 1, false), res("b", -2, 4, 1, 1, false), res("a", 0, 6, 1, 1, false), res("b", 0, 6, 1, 1, false),
				res("b", -4, 2, 2, 6, true), res("b", -2, 4, 2, 6, true), res("b", 0, 6, 2, 6, true)},
		},
		// Stage 07: two partitions, one goes idle, the combined watermark.
		"partitions": {
			Title:   "TestIdlePartitionReleasesTheWatermark",
			Windows: Windows{Size: 10},
			Steps: []Step{
				{Op: OpEvent, Event: ev("e1", "a", 3, 1), Partition: 0, Watermark: none, Partitions: []PartitionMark{{2, false}, {none, false}}},
				{Op: OpEvent, Event: ev("e2", "b", 1, 1), Partition: 1, Watermark: 0, Partitions: []PartitionMark{{2, false}, {0, false}}},
				{Op: OpEvent, Event: ev("e3", "a", 14, 1), Partition: 0, Watermark: 0, Partitions: []PartitionMark{{13, false}, {0, false}}},
				{Op: OpIdle, Partition: 1, Watermark: 13, Partitions: []PartitionMark{{13, false}, {0, true}}, Emitted: []kit.Result{res("a", 0, 10, 1, 1, false), res("b", 0, 10, 1, 1, false)}},
				{Op: OpEvent, Event: ev("e4", "a", 25, 1), Partition: 0, Watermark: 24, Partitions: []PartitionMark{{24, false}, {0, true}}, Emitted: []kit.Result{res("a", 10, 20, 1, 1, false)}},
				{Op: OpActive, Partition: 1, Watermark: 24, Partitions: []PartitionMark{{24, false}, {24, false}}},
			},
			WantWatermark: 24, HasWantWatermark: true,
		},
		// Stage 01: an event behind the watermark counted, where the test
		// wanted it in the side output.
		"side-output": {
			Title:   "TestEventIsLateExactlyWhenWatermarkReachesItsWindowEnd",
			Note:    "Late() = (none)\nwant      [e2 b@9=2]",
			Windows: Windows{Size: 10},
			Steps: []Step{
				event(ev("e1", "a", 13, 1), 10),
				event(ev("e2", "b", 9, 2), 10),
				event(ev("e3", "b", 10, 4), 10),
			},
			WantLate: []kit.Event{ev("e2", "b", 9, 2)}, HasWantLate: true,
		},
		// Stage 04: a restore between arrivals.
		"restore": {
			Title:   "TestRestoreContinuesTheRun",
			Windows: Windows{Size: 10},
			Steps: []Step{
				event(ev("e1", "a", 1, 1), -1),
				event(ev("e2", "a", 8, 1), 6),
				{Op: OpRestore, Partition: -1, Watermark: 6},
				event(ev("e3", "a", 16, 1), 14, res("a", 0, 10, 2, 2, false)),
			},
			Want: []kit.Result{res("a", 0, 10, 2, 2, false)},
		},
		// A drill's page: hourly windows on clock times, a selection of
		// the calls of a busy hour, a tap that vanished.
		"drill": {
			Title:   "TestReproduceDailyTotalBelowTheClearingHouse: tap hh-7 of line M3, hour [05:00:00, 06:00:00)",
			Note:    "€12.40 of Tuesday's revenue is in neither the ledger nor reconciliation.",
			Windows: Windows{Size: hour},
			Steps: []Step{
				event(ev("gate-7", "M3", 5*hour+7_960, 240), 5*hour+2_960),
				event(ev("gate-3263", "M3", 5*hour+59*60_000, 240), 5*hour+58*60_000),
				event(ev("gate-3282", "M3", 6*hour+5_000, 240), 6*hour, res("M3", 5*hour, 6*hour, 2, 480, false)),
				event(ev("hh-7", "M3", 5*hour+25*60_000, 440), 6*hour+59*60_000),
			},
			Late: []kit.Event{ev("hh-7", "M3", 5*hour+25*60_000, 440)},
			Time: func(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04:05") },
			Span: func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() },
		},
		// The int64 edges: a run at the bottom and the top of the range.
		"extremes": {
			Title:   "TestWindowsAtTheEdgesOfInt64",
			Windows: Windows{Size: 10},
			Steps: []Step{
				event(ev("lo", "a", math.MinInt64, 1), none),
				event(ev("hi", "a", math.MaxInt64-1, 1), math.MaxInt64-2, res("a", math.MinInt64, math.MinInt64+10, 1, 1, false)),
			},
		},
	}
}

// samplePage is a page of the golden and browser tests: its title and
// runs, one figure each.
type samplePage struct {
	title string
	runs  []Run
}

// samplePages are the pages of the tests: each sample alone, and a demo's
// page of two runs.
func samplePages() map[string]samplePage {
	samples := Samples()
	pages := map[string]samplePage{}
	for name, r := range samples {
		pages[name] = samplePage{r.Title, []Run{r}}
	}
	pages["two-runs"] = samplePage{"Demo of stage 04: a snapshot and a restore", []Run{samples["tumbling"], samples["restore"]}}
	return pages
}

func (p samplePage) html() ([]byte, error) {
	if len(p.runs) == 1 {
		return HTML(p.runs[0])
	}
	return Page(p.title, "The reference on a small scripted stream.", p.runs...)
}

// TestGoldenPages certifies the drawing: each sample page renders to
// exactly its page in testdata/ (go test ./internal/picture -update
// rewrites them), so a change to the picture shows in review as a change
// to a page.
func TestGoldenPages(t *testing.T) {
	pages := samplePages()
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		t.Run(name, func(t *testing.T) {
			got, err := pages[name].html()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".html")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/picture -update to write it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("the page of sample %q differs from %s; if the change is meant, run go test ./internal/picture -update and review the page in a browser", name, path)
			}
		})
	}
}

// named is a testing.TB's name, for Save.
type named string

func (n named) Name() string { return string(n) }

// TestSave certifies where a failing test's page goes and what the
// message says: nothing at all with pictures off; with them on, a page in
// a folder named for the test's package, a file:// link to it, and the
// first failure's page kept when the same test fails again.
func TestSave(t *testing.T) {
	t.Setenv(Env, "")
	if got := Save(named("TestX"), Samples()["tumbling"]); got != "" {
		t.Errorf("Save with pictures off = %q, want nothing", got)
	}
	dir := t.TempDir()
	t.Setenv(Env, dir)
	first, second := Samples()["tumbling"], Samples()["sessions"]
	got := Save(named("TestX/a sub test"), first)
	pkg, _ := os.Getwd()
	path := filepath.Join(dir, filepath.Base(pkg), "TestX--a_sub_test.html")
	if want := "picture: file://" + path; got != want {
		t.Errorf("Save = %q, want %q", got, want)
	}
	if again := Save(named("TestX/a sub test"), second); again != got {
		t.Errorf("a second Save of the same test = %q, want the first page's link %q", again, got)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := HTML(first)
	if string(page) != string(want) {
		t.Errorf("the page at %s is not the first failure's", path)
	}
}
