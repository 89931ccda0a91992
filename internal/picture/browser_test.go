//go:build browser

package picture

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The browser tests look at each page as a person would: in Chromium, at
// a laptop's width. They need Chromium (Debian's chromium package); CI
// sets FLK_BROWSER=required so that a missing browser fails instead of
// skipping. FLK_SCREENSHOTS=dir keeps a screenshot of each page.

// measure is what the page reports about itself, in CSS pixels.
const measure = `(() => {
  const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom, cx: (r.left + r.right) / 2}; };
  const figure = sec => {
  const svg = sec.querySelector('svg.run');
  const ticks = [...svg.querySelectorAll('g.tick')].map(g => ({ts: Number(g.dataset.ts), x: box(g.querySelector('line')).cx}));
  const bands = [...svg.querySelectorAll('g.band')].map(g => { const l = g.querySelector('rect.lateness'); return {start: Number(g.dataset.start), end: Number(g.dataset.end), box: box(g.querySelector('rect')), lateness: l ? box(l) : null}; });
  const events = [...svg.querySelectorAll('g.event')].map(g => ({ts: Number(g.dataset.ts), box: box(g.querySelector('circle, path, rect'))}));
  const scale = svg.getScreenCTM().a;
  const texts = [...svg.querySelectorAll('text')].map(t => ({text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale, box: box(t)}));
  return {svg: box(svg), ticks, bands, events, texts, rows: svg.querySelectorAll('g.row').length, tableRows: sec.querySelectorAll('table.windows tbody tr').length,
    rings: svg.querySelectorAll('g.event circle.ring').length, lateStatus: (sec.querySelector('table.late td.status') || {}).textContent || ''};
  };
  return {
    scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
    figures: [...document.querySelectorAll('section.figure')].map(figure),
  };
})()`

type rect struct {
	L  float64 `json:"l"`
	R  float64 `json:"r"`
	T  float64 `json:"t"`
	B  float64 `json:"b"`
	CX float64 `json:"cx"`
}

type measured struct {
	ScrollWidth int             `json:"scrollWidth"`
	ClientWidth int             `json:"clientWidth"`
	Figures     []figureMeasure `json:"figures"`
}

type figureMeasure struct {
	SVG   rect `json:"svg"`
	Ticks []struct {
		TS float64 `json:"ts"`
		X  float64 `json:"x"`
	} `json:"ticks"`
	Bands []struct {
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Box   rect    `json:"box"`
		// Lateness is the allowed lateness drawn after the window's end,
		// nil when there is none.
		Lateness *rect `json:"lateness"`
	} `json:"bands"`
	Events []struct {
		TS  float64 `json:"ts"`
		Box rect    `json:"box"`
	} `json:"events"`
	Texts []struct {
		Text string  `json:"text"`
		PX   float64 `json:"px"`
		Box  rect    `json:"box"`
	} `json:"texts"`
	Rows       int    `json:"rows"`
	TableRows  int    `json:"tableRows"`
	Rings      int    `json:"rings"`      // events ringed: their side-output fate is not the wanted one
	LateStatus string `json:"lateStatus"` // the side output table's status, when the test wanted a side output
}

// TestPagesInChromium certifies each sample page in a real browser at
// 1280×800: it renders with no error, nothing scrolls sideways, every
// label is at least 11 px and inside the drawing, each window's band
// spans its start and end on the time axis, and each event sits at its
// timestamp.
func TestPagesInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("FLK_BROWSER") == "required" {
			t.Fatal("no Chromium on PATH, and FLK_BROWSER=required (apt-get install chromium)")
		}
		t.Skip("no Chromium on PATH (apt-get install chromium); FLK_BROWSER=required makes this a failure")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1280, 800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}

	dir := t.TempDir()
	pages := samplePages()
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		t.Run(name, func(t *testing.T) {
			page, err := pages[name].html()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name+".html")
			if err := os.WriteFile(path, page, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := chromedp.NewContext(bctx)
			defer cancel()
			ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			var mu sync.Mutex
			var problems []string
			err = chromedp.Listen(ctx, func(ev any) {
				mu.Lock()
				defer mu.Unlock()
				switch ev := ev.(type) {
				case *runtime.EventExceptionThrown:
					problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
				case *runtime.EventConsoleAPICalled:
					if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
						problems = append(problems, fmt.Sprintf("console %s", ev.Type))
					}
				case *log.EventEntryAdded:
					if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
						problems = append(problems, "log: "+ev.Entry.Text)
					}
				}
			})
			if err != nil {
				t.Fatalf("listening to Chromium: %v", err)
			}
			err = chromedp.Do(ctx,
				chromedp.EmulateViewport(1280, 800),
				chromedp.Navigate("file://"+path),
				chromedp.WaitVisible(chromedp.CSS("svg.run")),
			)
			if err != nil {
				t.Fatalf("loading %s in Chromium: %v", path, err)
			}
			m, err := chromedp.Run(ctx, chromedp.Evaluate[measured](measure))
			if err != nil {
				t.Fatalf("measuring %s: %v", path, err)
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot of %s: %v", path, err)
			}
			if out := os.Getenv("FLK_SCREENSHOTS"); out != "" {
				if err := os.WriteFile(filepath.Join(out, name+".png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			checkPage(t, pages[name].runs, m, problems)
		})
	}
}

func checkPage(t *testing.T, runs []Run, m measured, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Errorf("the page logged problems: %s", strings.Join(problems, "; "))
	}
	if m.ScrollWidth > m.ClientWidth {
		t.Errorf("at 1280 px the page is %d px wide, more than the %d px it shows: a reader would scroll sideways", m.ScrollWidth, m.ClientWidth)
	}
	if len(m.Figures) != len(runs) {
		t.Fatalf("the page has %d figures, want one per run: %d", len(m.Figures), len(runs))
	}
	for i, r := range runs {
		checkFigure(t, r, m.Figures[i])
	}
}

// checkFigure checks one run's figure.
func checkFigure(t *testing.T, r Run, m figureMeasure) {
	t.Helper()
	if want := min(len(r.Steps), maxSteps); m.Rows != want {
		t.Errorf("the drawing has %d rows, want one per call: %d", m.Rows, want)
	}
	for _, x := range m.Texts {
		if x.PX < 11 {
			t.Errorf("label %q is drawn at %.1f px, want at least 11 px to read at a laptop's width", x.Text, x.PX)
		}
		if x.Box.L < m.SVG.L-0.5 || x.Box.R > m.SVG.R+0.5 {
			t.Errorf("label %q spans x %.0f–%.0f, outside the drawing's %.0f–%.0f: it is cut off", x.Text, x.Box.L, x.Box.R, m.SVG.L, m.SVG.R)
		}
	}
	for i, x := range m.Texts {
		for _, y := range m.Texts[i+1:] {
			if overlap(x.Box, y.Box) {
				t.Errorf("labels %q and %q overlap: neither reads", x.Text, y.Text)
			}
		}
	}
	// The time axis as the page draws it: two ticks give px per ms.
	if len(m.Ticks) < 2 {
		t.Fatalf("the axis has %d tick(s), want at least 2", len(m.Ticks))
	}
	a, b := m.Ticks[0], m.Ticks[len(m.Ticks)-1]
	px := func(ts float64) float64 { return a.X + (ts-a.TS)/(b.TS-a.TS)*(b.X-a.X) }
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1.5 }
	for _, bd := range m.Bands {
		if !near(bd.Box.L, px(bd.Start)) || !near(bd.Box.R, px(bd.End)) {
			t.Errorf("window [%.0f,%.0f)'s band spans x %.1f–%.1f, want %.1f–%.1f: its start and end on the time axis", bd.Start, bd.End, bd.Box.L, bd.Box.R, px(bd.Start), px(bd.End))
		}
	}
	axisEnd := m.SVG.L + axisRight/viewWidth*(m.SVG.R-m.SVG.L) // where the time axis ends, in px
	for _, bd := range m.Bands {
		switch {
		case r.Windows.Lateness > 0 && bd.Lateness == nil && bd.Box.R < axisEnd-1.5: // at the axis's end there is no room
			t.Errorf("window [%.0f,%.0f) has no allowed lateness drawn after its end, want %d", bd.Start, bd.End, r.Windows.Lateness)
		case r.Windows.Lateness == 0 && bd.Lateness != nil:
			t.Errorf("window [%.0f,%.0f) has an allowed lateness drawn, want none: the run has no lateness", bd.Start, bd.End)
		case bd.Lateness != nil && (!near(bd.Lateness.L, px(bd.End)) || bd.Lateness.R <= bd.Lateness.L):
			t.Errorf("window [%.0f,%.0f)'s lateness spans x %.1f–%.1f, want it to start at its end, x %.1f", bd.Start, bd.End, bd.Lateness.L, bd.Lateness.R, px(bd.End))
		}
	}
	for _, e := range m.Events {
		if !near(e.Box.CX, px(e.TS)) {
			t.Errorf("the event at %.0f is drawn at x %.1f, want %.1f: its timestamp on the axis", e.TS, e.Box.CX, px(e.TS))
		}
	}
	if want := len(tableWindows(r)); m.TableRows != want {
		t.Errorf("the windows table has %d rows, want %d: one per window that returned or was wanted a result", m.TableRows, want)
	}
	if want := len(slices.DeleteFunc(r.LateDiffers(), func(d bool) bool { return !d })); m.Rings != want {
		t.Errorf("%d events are ringed, want %d: one per event whose side output is not the wanted one", m.Rings, want)
	}
	wantStatus := ""
	if r.HasWantLate {
		wantStatus = "✓ same"
		if !slices.Equal(r.Late, r.WantLate) {
			wantStatus = "✗ differs"
		}
	}
	if m.LateStatus != wantStatus {
		t.Errorf("the side output's status reads %q, want %q", m.LateStatus, wantStatus)
	}
}

// tableWindows are the windows of r's results and wanted results.
func tableWindows(r Run) map[Window]bool {
	ws := map[Window]bool{}
	for _, x := range append(r.Got(), r.Want...) {
		ws[Window{x.Start, x.End}] = true
	}
	return ws
}

// overlap reports whether two boxes share more than a sliver: 2 px across
// and down.
func overlap(a, b rect) bool {
	return min(a.R, b.R)-max(a.L, b.L) > 2 && min(a.B, b.B)-max(a.T, b.T) > 2
}
