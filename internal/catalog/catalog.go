// Package catalog reads the course catalogue: the stages in course order,
// their cards, hints, skeleton files and the one line each test certifies.
// It is the single description of the course that `de`, the integrity
// checks and the README table all read, so adding a stage is one entry in
// stages/catalog.json and one folder. It also owns the course's shape: which
// stages are the core and which the extensions after it (Track), and how
// each track counts its stages (Position, CardTitle, TrackHeading); nothing
// else counts stages.
package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Course is the name learners type in stage references: FLK-BYO/01.
const Course = "FLK-BYO"

// Catalog is the parsed catalogue together with the files it describes.
type Catalog struct {
	Title  string
	Stages []Stage
	// Drills are the incident drills (drills/catalog.json): small broken
	// jobs on the course's engine, outside the stages' progression. They
	// are Stages of the Drill track, numbered among themselves.
	Drills []Stage
	fsys   fs.FS
	drills fs.FS // rooted at the drills folder; nil until LoadDrills
}

// Stage is one stage of the course. Its number is its position in the
// catalogue; its ID, folder and reference are derived, never stored.
type Stage struct {
	Number  int    // 1-based position in the course
	Slug    string // stable name, e.g. "keyed-partitioning"
	Title   string // e.g. "Keyed partitioning"
	Concept string // one line: what the stage teaches
	Points  int    // points for grading, shared equally by its tests
	Ready   bool   // false for a stage announced but not yet in this version
	Track   Track  // the core, or the extensions after it

	// Solution names the reference files (in solutions/, the plain build,
	// slash-separated: a file of a package of its own under solutions/,
	// such as "pebblestate/pebble.go", is shown whole by its stage alone)
	// that `de solution` shows for the stage, in reading order: whole if no
	// earlier stage lists the file, else what this stage adds to it (see
	// internal/refview). SolutionNote, if set, says why they are not the
	// stage's skeleton files.
	Solution     []string
	SolutionNote string

	// Race says that the stage's lesson is concurrency, so `de test` runs
	// its suite a second time, with the race detector, while it is the
	// current stage (after a fast first pass without it); the others, and
	// earlier stages run for regressions, go without it unless asked (the
	// race detector makes a run about twice as slow).
	Race bool

	// LabImports are the import paths outside the standard library and kit
	// that a lab may use once it has reached this stage (a stage whose
	// lesson is a library, such as an embedded store).
	LabImports []string

	// Reruns are earlier stages' suites that run again once the learner
	// has reached this stage, each under a build tag of its own that binds
	// their API to this stage's code: stage 12 runs stages 01 and 03 on
	// its BackendProcessor, once on each backend. de test runs them while
	// this is the current stage; CI runs them on the reference.
	Reruns []Rerun

	// Needs, for a drill, are the IDs of the stages whose code its job runs
	// on: once the learner has passed them all, de runs the drill on the
	// learner's engine, else on the reference's. JobPackage is the name of
	// the job's package, copied to lab/drills/<JobPackage>.
	Needs      []string
	JobPackage string
}

// Rerun is one more pass of earlier stages' suites (Stage.Reruns): go test
// -tags "<lab or solution>,<Tag>" on Stages, whose bind files under Tag
// bind their API to a later stage's code.
type Rerun struct {
	Tag    string  // the build tag: "statebackend_heap"
	On     string  // what the suites run on, for the report: "stage 12's BackendProcessor, heap backend"
	Stages []Stage // the earlier stages, in course order
}

// Tags returns the build tags of the pass for base ("lab" or "solution").
func (r Rerun) Tags(base string) string { return base + "," + r.Tag }

// TestTimeout returns how long one test of the pass may take, for a test
// of the stage's own suites that may take d: several times d, because each
// processor a rerun test makes opens a backend of its own (on Pebble, a
// database in its own directory), so that its tests take several times as
// long as on the Processor they were written for, and more so on a loaded
// machine. Zero stays zero: no limit.
func (r Rerun) TestTimeout(d time.Duration) time.Duration { return rerunTimeFactor * d }

// rerunTimeFactor is how many times longer a rerun's tests may take: stage
// 01 and 03's slowest take about 2 s on Pebble on an idle 2-vCPU machine,
// about 10 times their heap time, and reached de's 20 s limit under load.
const rerunTimeFactor = 4

// Track is the part of the course a stage belongs to. The core comes first
// and is the course; the extensions follow it, opt-in, for a learner who
// finished the core. Each track numbers its cards up to its own last stage
// ("Stage 3 of 8", "Stage 9 of 12"), and de list counts each apart.
type Track string

const (
	Core      Track = "core"      // catalog.json: no "track", or "track": "core"
	Extension Track = "extension" // catalog.json: "track": "extension"
	Drill     Track = "drill"     // drills/catalog.json: every drill
)

// tracks are the tracks in course order.
var tracks = []Track{Core, Extension}

// ID returns the stage's folder name, e.g. "02-keyed-partitioning"; a
// drill's is its folder relative to the course root,
// "drills/01-quiet-partition", so that progress tells the two apart.
func (s Stage) ID() string {
	if s.Track == Drill {
		return s.Dir()
	}
	return s.folder()
}

// folder is the name of the stage's folder: "02-keyed-partitioning".
func (s Stage) folder() string { return fmt.Sprintf("%02d-%s", s.Number, s.Slug) }

// Ref returns the name a learner types, e.g. "FLK-BYO/02"; for a drill its
// slug, as de drill takes it.
func (s Stage) Ref() string {
	if s.Track == Drill {
		return "drill " + s.Slug
	}
	return fmt.Sprintf("%s/%02d", Course, s.Number)
}

// Dir returns the stage's folder relative to the course root, slash-separated.
func (s Stage) Dir() string {
	if s.Track == Drill {
		return "drills/" + s.folder()
	}
	return "stages/" + s.folder()
}

// JobDir returns where a drill's job lives in the learner's tree,
// slash-separated: "lab/drills/quietpartition".
func (s Stage) JobDir() string { return "lab/drills/" + s.JobPackage }

// WorkDir returns where the stage's skeleton files go in the learner's
// tree, slash-separated: lab for a stage, JobDir for a drill's job. de
// start copies them there and de reset puts them back.
func (s Stage) WorkDir() string {
	if s.Track == Drill {
		return s.JobDir()
	}
	return "lab"
}

// EngineDir returns where a drill's engine binding lives, slash-separated
// from the course root: "drills/01-quiet-partition/engine". Each drill has
// its own, binding only the API of the stages it needs, so that a learner
// who has passed those (and no more) can run it on their own engine.
func (s Stage) EngineDir() string { return s.Dir() + "/engine" }

// Package returns the go test package pattern for the stage, e.g. "./stages/01-windows".
func (s Stage) Package() string { return "./" + s.Dir() }

type file struct {
	Format int    `json:"format"`
	Course string `json:"course"`
	Title  string `json:"title"`
	Stages []struct {
		Slug       string   `json:"slug"`
		Title      string   `json:"title"`
		Concept    string   `json:"concept"`
		Points     int      `json:"points"`
		Ready      bool     `json:"ready"`
		Solution   []string `json:"solution"`
		Note       string   `json:"solution_note"`
		LabImports []string `json:"lab_imports"`
		Race       bool     `json:"race"`
		Track      Track    `json:"track"`
		Reruns     []struct {
			Tag    string   `json:"tag"`
			On     string   `json:"on"`
			Stages []string `json:"stages"`
		} `json:"reruns"`
	} `json:"stages"`
}

// Load reads catalog.json from fsys, whose root is the stages folder.
func Load(fsys fs.FS) (*Catalog, error) {
	data, err := fs.ReadFile(fsys, "catalog.json")
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("catalog: catalog.json: %w", err)
	}
	if f.Format != 1 {
		return nil, fmt.Errorf("catalog: catalog.json has format %d; this de reads format 1", f.Format)
	}
	c := &Catalog{Title: f.Title, fsys: fsys}
	for i, s := range f.Stages {
		if s.Slug == "" || s.Title == "" {
			return nil, fmt.Errorf("catalog: stage %d has no slug or title", i+1)
		}
		track := s.Track
		if track == "" {
			track = Core
		}
		ti := slices.Index(tracks, track)
		if ti < 0 {
			return nil, fmt.Errorf("catalog: stage %d (%s) has track %q; a track is %q or %q", i+1, s.Slug, s.Track, Core, Extension)
		}
		if i > 0 && ti < slices.Index(tracks, c.Stages[i-1].Track) {
			return nil, fmt.Errorf("catalog: stage %d (%s) is in the %s track, after a stage of the %s track: the tracks follow each other in course order", i+1, s.Slug, track, c.Stages[i-1].Track)
		}
		c.Stages = append(c.Stages, Stage{
			Number: i + 1, Slug: s.Slug, Title: s.Title, Concept: s.Concept,
			Points: s.Points, Ready: s.Ready, Track: track, Solution: s.Solution, SolutionNote: s.Note,
			LabImports: s.LabImports, Race: s.Race,
		})
		for _, r := range s.Reruns {
			if r.Tag == "" || r.On == "" || len(r.Stages) == 0 {
				return nil, fmt.Errorf("catalog: stage %d (%s) has a rerun without a tag, an \"on\" or stages", i+1, s.Slug)
			}
			rr := Rerun{Tag: r.Tag, On: r.On}
			for _, id := range r.Stages {
				earlier, ok := c.ByID(id)
				if !ok || earlier.Number > i {
					return nil, fmt.Errorf("catalog: stage %d (%s) reruns %q, which is not an earlier stage's ID", i+1, s.Slug, id)
				}
				rr.Stages = append(rr.Stages, earlier)
			}
			c.Stages[i].Reruns = append(c.Stages[i].Reruns, rr)
		}
	}
	return c, nil
}

type drillFile struct {
	Format int `json:"format"`
	Drills []struct {
		Slug    string   `json:"slug"`
		Title   string   `json:"title"`
		Symptom string   `json:"symptom"`
		Points  int      `json:"points"`
		Ready   bool     `json:"ready"`
		Needs   []string `json:"needs"`
		Package string   `json:"package"`
	} `json:"drills"`
}

// LoadDrills reads the drills' catalogue, catalog.json in fsys (rooted at
// the drills folder), into c.Drills. Each drill needs stages of c by ID.
func (c *Catalog) LoadDrills(fsys fs.FS) error {
	data, err := fs.ReadFile(fsys, "catalog.json")
	if err != nil {
		return fmt.Errorf("drills catalog: %w", err)
	}
	var f drillFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("drills catalog: catalog.json: %w", err)
	}
	if f.Format != 1 {
		return fmt.Errorf("drills catalog: catalog.json has format %d; this de reads format 1", f.Format)
	}
	c.drills, c.Drills = fsys, nil
	for i, d := range f.Drills {
		if d.Slug == "" || d.Title == "" || d.Package == "" {
			return fmt.Errorf("drills catalog: drill %d has no slug, title or package", i+1)
		}
		for _, id := range d.Needs {
			if _, ok := c.ByID(id); !ok {
				return fmt.Errorf("drills catalog: drill %d (%s) needs stage %q, which the catalogue does not have", i+1, d.Slug, id)
			}
		}
		c.Drills = append(c.Drills, Stage{
			Number: i + 1, Slug: d.Slug, Title: d.Title, Concept: d.Symptom,
			Points: d.Points, Ready: d.Ready, Track: Drill, Needs: d.Needs, JobPackage: d.Package,
		})
	}
	return nil
}

// ResolveDrill finds the drill a learner named, ready or not:
// "quiet-partition", "01-quiet-partition", "drills/01-quiet-partition",
// "01" or "1". An unknown name is an error that lists the drills there are.
func (c *Catalog) ResolveDrill(name string) (Stage, error) {
	arg := strings.ToLower(strings.TrimSpace(name))
	for _, d := range c.Drills {
		if arg == d.Slug || arg == d.folder() || arg == d.ID() {
			return d, nil
		}
		if n, err := strconv.Atoi(arg); err == nil && n == d.Number {
			return d, nil
		}
	}
	var names []string
	for _, d := range c.ReadyDrills() {
		names = append(names, d.Slug)
	}
	if len(names) == 0 {
		return Stage{}, errors.New("this version of the course has no drills yet")
	}
	return Stage{}, fmt.Errorf("unknown drill %q; the drills are %s (de drill list)", name, strings.Join(names, ", "))
}

// ResolveReadyDrill is ResolveDrill for a drill that must be in this
// version of the course: one announced but not ready is an error that says
// so.
func (c *Catalog) ResolveReadyDrill(name string) (Stage, error) {
	d, err := c.ResolveDrill(name)
	if err != nil {
		return d, err
	}
	if !d.Ready {
		return d, fmt.Errorf("drill %s is not in this version of the course yet; de drill list shows the drills there are", d.Slug)
	}
	return d, nil
}

// ReadyDrills returns the drills in this version of the course, in order.
func (c *Catalog) ReadyDrills() []Stage {
	var out []Stage
	for _, d := range c.Drills {
		if d.Ready {
			out = append(out, d)
		}
	}
	return out
}

// content returns the files of a stage or drill and its folder in them.
func (c *Catalog) content(s Stage) (fs.FS, string) {
	if s.Track == Drill {
		return c.drills, s.folder()
	}
	return c.fsys, s.folder()
}

// Tracks returns the tracks that have stages, in course order.
func (c *Catalog) Tracks() []Track {
	var out []Track
	for _, t := range tracks {
		if len(c.Track(t)) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// Track returns the stages of track t, ready or not, in course order.
func (c *Catalog) Track(t Track) []Stage {
	var out []Stage
	for _, s := range c.Stages {
		if s.Track == t {
			out = append(out, s)
		}
	}
	return out
}

// TrackEnd returns the number of the last stage of track t (0 if it has
// none): the M of "Stage N of M" on the cards of that track. For the core,
// which starts the course, it is also how many stages the core has.
func (c *Catalog) TrackEnd(t Track) int {
	sts := c.Track(t)
	if len(sts) == 0 {
		return 0
	}
	return sts[len(sts)-1].Number
}

// Position returns where a stage stands in its track, as its card's title
// and de test's summary say it: "Stage 3 of 8", "Stage 9 of 12"; a drill's
// is "Drill 1 of 6".
func (c *Catalog) Position(s Stage) string {
	if s.Track == Drill {
		return fmt.Sprintf("Drill %d of %d", s.Number, len(c.Drills))
	}
	return fmt.Sprintf("Stage %d of %d", s.Number, c.TrackEnd(s.Track))
}

// CardTitle returns the first line a stage's card must have, without the
// "# ": "Stage 3 of 8 — Allowed lateness".
func (c *Catalog) CardTitle(s Stage) string { return c.Position(s) + " — " + s.Title }

// TrackHeading returns the heading de list and README's table show above
// track t's stages: "The core: stages 01–08".
func (c *Catalog) TrackHeading(t Track) string {
	sts := c.Track(t)
	if len(sts) == 0 {
		return ""
	}
	span := fmt.Sprintf("stages %02d–%02d", sts[0].Number, sts[len(sts)-1].Number)
	if len(sts) == 1 {
		span = fmt.Sprintf("stage %02d", sts[0].Number)
	}
	if t == Extension {
		return fmt.Sprintf("Extensions: %s, after the core", span)
	}
	return "The core: " + span
}

// LabImports returns every import path outside the standard library that
// some stage allows a lab (kit is always allowed, and not listed). A lab
// holds the files of every stage it has reached, and each stage's suite
// compiles all of them, so the allowance is the course's, not one stage's.
func (c *Catalog) LabImports() []string {
	var all []string
	for _, s := range c.Stages {
		for _, p := range s.LabImports {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	return all
}

// FS returns the files of the course content, rooted at the stages folder.
func (c *Catalog) FS() fs.FS { return c.fsys }

// FirstShowing returns the first stage whose solution lists the reference
// file name ("windows.go"): the stage whose `de solution` shows the file
// whole. A later stage that lists it too shows what it adds to the file.
func (c *Catalog) FirstShowing(name string) (Stage, bool) {
	for _, s := range c.Stages {
		if slices.Contains(s.Solution, name) {
			return s, true
		}
	}
	return Stage{}, false
}

// ByID returns the stage with the given ID ("01-windows").
func (c *Catalog) ByID(id string) (Stage, bool) {
	for _, s := range c.Stages {
		if s.ID() == id {
			return s, true
		}
	}
	return Stage{}, false
}

// Find returns the stage or the drill with the given ID ("01-windows",
// "drills/01-quiet-partition"): what a mutant's folder or a progress
// entry names.
func (c *Catalog) Find(id string) (Stage, bool) {
	if s, ok := c.ByID(id); ok {
		return s, true
	}
	for _, d := range c.Drills {
		if d.ID() == id {
			return d, true
		}
	}
	return Stage{}, false
}

// Resolve finds the stage a learner named. It accepts "FLK-BYO/02",
// "FLK-BYO/02-keyed-partitioning", "02-keyed-partitioning", "02", "2" and
// "keyed-partitioning", case-insensitively. An unknown name is an error that
// lists the valid stages.
func (c *Catalog) Resolve(name string) (Stage, error) {
	arg := strings.ToLower(strings.TrimSpace(name))
	if rest, ok := strings.CutPrefix(arg, strings.ToLower(Course)+"/"); ok {
		arg = rest
	}
	for _, s := range c.Stages {
		if arg == s.ID() || arg == s.Slug {
			return s, nil
		}
		if n, err := strconv.Atoi(arg); err == nil && n == s.Number {
			return s, nil
		}
	}
	return Stage{}, fmt.Errorf("unknown stage %q; valid stages are %s", name, c.list())
}

// ResolveReady is Resolve for a stage that must be in this version of the
// course: a stage announced but not ready is an error that says so.
func (c *Catalog) ResolveReady(name string) (Stage, error) {
	st, err := c.Resolve(name)
	if err != nil {
		return st, err
	}
	if !st.Ready {
		return st, fmt.Errorf("stage %s (%s) is not in this version of the course yet; de list shows the stages there are", st.Ref(), st.Slug)
	}
	return st, nil
}

// Ready returns the stages in this version of the course, in course order.
func (c *Catalog) Ready() []Stage { return c.ReadyThrough(len(c.Stages)) }

// ReadyThrough returns the ready stages numbered 1 … n, in course order:
// what a run "through stage n" covers.
func (c *Catalog) ReadyThrough(n int) []Stage {
	var out []Stage
	for _, s := range c.Stages[:min(max(n, 0), len(c.Stages))] {
		if s.Ready {
			out = append(out, s)
		}
	}
	return out
}

// ReadyAfter returns the ready stages after stage n, in course order.
func (c *Catalog) ReadyAfter(n int) []Stage {
	var out []Stage
	for _, s := range c.Stages[min(max(n, 0), len(c.Stages)):] {
		if s.Ready {
			out = append(out, s)
		}
	}
	return out
}

func (c *Catalog) list() string {
	var parts []string
	for _, s := range c.Stages {
		parts = append(parts, fmt.Sprintf("%s (%s)", s.Ref(), s.Slug))
	}
	return strings.Join(parts, ", ")
}

// Card returns the parsed stage card (README.md in the stage folder).
func (c *Catalog) Card(s Stage) (Card, error) {
	fsys, dir := c.content(s)
	data, err := fs.ReadFile(fsys, path.Join(dir, "README.md"))
	if err != nil {
		return Card{}, fmt.Errorf("stage %s card: %w", s.ID(), err)
	}
	return ParseCard(string(data)), nil
}

// SkeletonFiles returns the names of the stage's skeleton files, which
// `de start` copies into lab/. A stage may have none (it only extends the
// behaviour of earlier files).
//
// A drill's skeleton is its broken job (_job/), which de drill start
// copies into the drill's JobDir.
func (c *Catalog) SkeletonFiles(s Stage) ([]string, error) {
	fsys, dir := c.content(s)
	entries, err := fs.ReadDir(fsys, path.Join(dir, skeletonDir(s)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("stage %s skeleton: %w", s.ID(), err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// SkeletonFile returns the contents of one skeleton file.
func (c *Catalog) SkeletonFile(s Stage, name string) ([]byte, error) {
	fsys, dir := c.content(s)
	return fs.ReadFile(fsys, path.Join(dir, skeletonDir(s), name))
}

// skeletonDir is the folder of a stage's skeleton, or of a drill's job.
func skeletonDir(s Stage) string {
	if s.Track == Drill {
		return "_job"
	}
	return "_skeleton"
}

// Explain returns a drill's worked explanation (EXPLAIN.md in its folder),
// which de drill explain shows once the drill has passed.
func (c *Catalog) Explain(s Stage) (string, error) {
	fsys, dir := c.content(s)
	data, err := fs.ReadFile(fsys, path.Join(dir, "EXPLAIN.md"))
	if err != nil {
		return "", fmt.Errorf("drill %s explanation: %w", s.Slug, err)
	}
	return string(data), nil
}

// MarkdownTable renders the stage table that README.md shows between its
// "stages:begin" and "stages:end" markers; a test keeps the two equal.
// It has one table per track, each under its heading.
func (c *Catalog) MarkdownTable() string {
	var b strings.Builder
	for i, t := range c.Tracks() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "**%s**\n\n", c.TrackHeading(t))
		b.WriteString("| stage | start with | you build | the idea |\n|---|---|---|---|\n")
		for _, s := range c.Track(t) {
			title := s.Title
			if !s.Ready {
				title += " (coming soon)"
			}
			fmt.Fprintf(&b, "| %02d | `de start %s` | %s | %s |\n", s.Number, s.Ref(), title, s.Concept)
		}
	}
	return b.String()
}

// Tags under which de runs a drill: the learner's job on the learner's
// engine, or on the reference's (a drill's EngineDir binds package
// solutions under drillref).
const (
	DrillOwnEngine       = "lab"
	DrillReferenceEngine = "lab," + DrillReferenceEngineTag
)

// DrillReferenceEngineTag is the build tag that binds a drill's engine to
// the reference (its engine/engine_ref.go).
const DrillReferenceEngineTag = "drillref"

// DrillEngine returns the build tags a drill's job runs under for a
// learner whose passed stages passed reports: their own engine once every
// stage the drill needs has passed (DrillOwnEngine), else the reference's
// (DrillReferenceEngine), with the stages still to pass.
func (c *Catalog) DrillEngine(d Stage, passed func(id string) bool) (tags string, missing []Stage) {
	for _, id := range d.Needs {
		if !passed(id) {
			st, _ := c.ByID(id)
			missing = append(missing, st)
		}
	}
	if len(missing) > 0 {
		return DrillReferenceEngine, missing
	}
	return DrillOwnEngine, nil
}

// DrillsMarkdownTable renders the drills' table that README.md shows
// between its "drills:begin" and "drills:end" markers; a test keeps the two
// equal.
func (c *Catalog) DrillsMarkdownTable() string {
	var b strings.Builder
	b.WriteString("| drill | start with | the symptom | builds on |\n|---|---|---|---|\n")
	for _, d := range c.Drills {
		title := d.Title
		if !d.Ready {
			title += " (coming soon)"
		}
		var needs []string
		for _, id := range d.Needs {
			if st, ok := c.ByID(id); ok {
				needs = append(needs, st.Ref())
			}
		}
		fmt.Fprintf(&b, "| %02d %s | `de drill start %s` | %s | %s |\n", d.Number, title, d.Slug, d.Concept, strings.Join(needs, ", "))
	}
	return b.String()
}
