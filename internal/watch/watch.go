// Package watch tells `de watch` when the learner's files change and what
// changed in the test results since the last run.
//
// A Source reports changed file names: Notify uses file-system events
// (fsnotify), Poll compares file sizes and modification times on an
// interval for file systems where events do not arrive (network mounts,
// some containers). Debounce turns a burst of changes (an editor writing a
// temporary file, renaming it, touching a backup) into one re-run. Diff
// compares two runs' test outcomes.
//
// Non-goals: watching anything but one flat folder and its subfolders,
// and deciding what to run; the caller does that.
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Source reports changes to the files under a folder. Changes delivers
// the names (relative to the folder, slash-separated) of files that
// changed; Close stops the source and closes Changes.
type Source interface {
	Changes() <-chan string
	Close() error
}

// Relevant reports whether a change to the file named rel should re-run
// the tests: a Go file the go tool builds, and nothing else. Editors
// write every other kind of name (swap files, backups, JetBrains'
// "x.go___jb_tmp___", gofmt's "x.go123456", vim's "4913"), none of which
// changes what the tests see, and a hidden or _-prefixed file is one the
// go tool ignores.
func Relevant(rel string) bool {
	base := filepath.Base(rel)
	switch {
	case !strings.HasSuffix(base, ".go") || base == ".go":
		return false
	case strings.HasPrefix(base, "."), strings.HasPrefix(base, "_"), strings.HasPrefix(base, "#"):
		return false
	}
	return true
}

// notifySource is a Source backed by fsnotify.
type notifySource struct {
	w    *fsnotify.Watcher
	dir  string
	out  chan string
	done chan struct{}
	once sync.Once
}

// Notify watches dir and its subfolders with file-system events. It
// fails where the platform offers none, and the caller can fall back to
// Poll.
func Notify(dir string) (Source, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w (try --poll)", dir, err)
	}
	s := &notifySource{w: w, dir: dir, out: make(chan string, 64), done: make(chan struct{})}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return w.Add(path)
		}
		return nil
	})
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("watch %s: %w (try --poll)", dir, err)
	}
	go s.loop()
	return s, nil
}

func (s *notifySource) loop() {
	defer close(s.out)
	for {
		select {
		case <-s.done:
			return
		case ev, ok := <-s.w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					_ = s.w.Add(ev.Name) // a new subfolder: watch it too
				}
			}
			if ev.Op == fsnotify.Chmod {
				continue // touched permissions, not contents
			}
			rel, err := filepath.Rel(s.dir, ev.Name)
			if err != nil || !Relevant(rel) {
				continue
			}
			select {
			case s.out <- filepath.ToSlash(rel):
			case <-s.done:
				return
			}
		case _, ok := <-s.w.Errors:
			if !ok {
				return
			}
		}
	}
}

func (s *notifySource) Changes() <-chan string { return s.out }

func (s *notifySource) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.w.Close()
	})
	return err
}

// stamp is what Poll compares: a file changed when either differs.
type stamp struct {
	size int64
	mod  time.Time
}

// pollSource is a Source that stats every file on an interval.
type pollSource struct {
	dir  string
	out  chan string
	done chan struct{}
	once sync.Once
}

// Poll watches dir and its subfolders by comparing every file's size and
// modification time each interval: slower than Notify, but it works on
// every file system. The first snapshot is taken before Poll returns, so
// any change made after it is reported.
func Poll(dir string, interval time.Duration) (Source, error) {
	if interval <= 0 {
		return nil, errors.New("poll interval must be positive, e.g. --poll-interval 500ms")
	}
	prev, err := snapshot(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	s := &pollSource{dir: dir, out: make(chan string, 64), done: make(chan struct{})}
	go s.loop(prev, interval)
	return s, nil
}

func (s *pollSource) loop(prev map[string]stamp, interval time.Duration) {
	defer close(s.out)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		cur, err := snapshot(s.dir)
		if err != nil {
			continue // the folder is being rewritten; try again next tick
		}
		for _, name := range changed(prev, cur) {
			select {
			case s.out <- name:
			case <-s.done:
				return
			}
		}
		prev = cur
	}
}

func (s *pollSource) Changes() <-chan string { return s.out }

func (s *pollSource) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// snapshot stats every relevant file under dir.
func snapshot(dir string) (map[string]stamp, error) {
	m := map[string]stamp{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || !Relevant(rel) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed while walking: the next snapshot sees it
		}
		m[filepath.ToSlash(rel)] = stamp{size: fi.Size(), mod: fi.ModTime()}
		return nil
	})
	return m, err
}

// changed returns the names that were added, removed or modified between
// two snapshots, sorted.
func changed(prev, cur map[string]stamp) []string {
	var names []string
	for name, st := range cur {
		if old, ok := prev[name]; !ok || old != st {
			names = append(names, name)
		}
	}
	for name := range prev {
		if _, ok := cur[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Debounce collects names from in until quiet has passed with no new one,
// then sends them, sorted and without duplicates, as one batch. after is
// the clock (time.After in production), so tests need not sleep. The
// returned channel closes when in does.
func Debounce(in <-chan string, quiet time.Duration, after func(time.Duration) <-chan time.Time) <-chan []string {
	out := make(chan []string)
	go func() {
		defer close(out)
		pending := map[string]bool{}
		var timer <-chan time.Time
		flush := func() bool {
			names := make([]string, 0, len(pending))
			for n := range pending {
				names = append(names, n)
			}
			slices.Sort(names)
			clear(pending)
			timer = nil
			out <- names
			return true
		}
		for {
			select {
			case name, ok := <-in:
				if !ok {
					if len(pending) > 0 {
						flush()
					}
					return
				}
				pending[name] = true
				timer = after(quiet)
			case <-timer:
				flush()
			}
		}
	}()
	return out
}

// Outcome is the state of one test in a run.
type Outcome string

// The outcomes Diff distinguishes.
const (
	Passed Outcome = "pass"
	Failed Outcome = "fail"
	Other  Outcome = "other" // skipped, or not run
)

// Change is one test whose outcome differs from the previous run.
type Change struct {
	Test     string // a key the caller chose, e.g. "01-windows TestAssign"
	From, To Outcome
}

// Diff returns the tests whose outcome changed from prev to cur, sorted
// by name. A test new in cur counts as changed from Other; a test gone
// from cur as changed to Other.
func Diff(prev, cur map[string]Outcome) []Change {
	var out []Change
	for name, to := range cur {
		from, ok := prev[name]
		if !ok {
			from = Other
		}
		if from != to {
			out = append(out, Change{Test: name, From: from, To: to})
		}
	}
	for name, from := range prev {
		if _, ok := cur[name]; !ok && from != Other {
			out = append(out, Change{Test: name, From: from, To: Other})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Test, b.Test) })
	return out
}
