package flinkcmp

import (
	"fmt"
	"strconv"

	"github.com/flk-byo/course/internal/demostream"
)

// job is how one stage is compared: the graduation job that runs its demo
// stream through Flink, the job's flags for the stream's settings, and
// what the reader should know about how the two sides run it.
type job struct {
	// class is the job's class in dev.flkbyo.flink.jobs.
	class string
	// flags are the job's flags for the stream's settings: every one the
	// stream sets, so that the job's own defaults never decide. rules is
	// the file holding the stream's rules (stage 11).
	flags func(s demostream.Stream, rules string) []string
	// notes say how the two sides differ in how they run the stream, each
	// a line.
	notes []string
}

// flag renders --name value.
func flag(name string, v int64) []string { return []string{"--" + name, strconv.FormatInt(v, 10)} }

// windowFlags are the flags of the jobs built on stage 03's windows.
func windowFlags(s demostream.Stream, _ string) []string {
	return concat(flag("window-size", s.WindowSize), flag("watermark-delay", s.WatermarkDelay), flag("allowed-lateness", s.AllowedLateness))
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// dedupNote is PARITY row 1, which every windowed job meets.
const dedupNote = "Flink has no dedup by ID (docs/PARITY.md, deliberate difference 1): the job drops redeliveries itself, first (DedupById)."

// jobs are the comparable stages' jobs, by stage number.
var jobs = map[int]job{
	1: {class: "Stage01TumblingWindows", flags: func(s demostream.Stream, _ string) []string {
		return concat(flag("window-size", s.WindowSize), flag("watermark-delay", s.WatermarkDelay))
	}, notes: []string{dedupNote}},
	2: {class: "Stage02KeyedReduce", flags: func(s demostream.Stream, _ string) []string {
		return flag("parallelism", int64(s.Parallelism))
	}, notes: []string{"Flink's reduce emits each key's rolling sum, one per event; RunParallel returns each key's final sum: Flink's last one per key is compared."}},
	3: {class: "Stage03Lateness", flags: windowFlags, notes: []string{dedupNote}},
	4: {class: "Stage04Checkpoints", flags: windowFlags, notes: []string{
		"Your lab takes a snapshot after the third event and goes on in a processor restored from it, to which the source replays from there;",
		"Flink's job runs without a failure. Exactly once means the same output.",
		dedupNote,
	}},
	5: {class: "Stage05TwoPhaseCommit", flags: windowFlags, notes: []string{
		"Your lab's job crashes after pre-committing checkpoint 2 and a second run recovers; Flink's job runs without a failure.",
		"Both sides show what they committed: exactly once means the same results. (RunJob keeps no side output.)",
		dedupNote,
	}},
	6: {class: "Stage06Rescaling", flags: func(s demostream.Stream, _ string) []string {
		return concat(windowFlags(s, ""), flag("max-parallelism", int64(s.MaxParallelism)), flag("parallelism", int64(s.Parallelism)))
	}, notes: []string{
		"Your lab is rescaled from 2 to 3 subtasks after the fifth event; Flink's job runs on 2 throughout. A rescale must change no result.",
		dedupNote,
	}},
	8: {class: "Stage08Sessions", flags: func(s demostream.Stream, _ string) []string {
		return concat(flag("gap", s.Gap), flag("watermark-delay", s.WatermarkDelay), flag("allowed-lateness", s.AllowedLateness))
	}, notes: []string{
		"The demo advances the watermark by hand; here it is the largest timestamp seen, after every event, on both sides.",
		"Flink's session windows retract nothing (docs/PARITY.md, deliberate difference 11): the job's Changelog writes the retractions from per-key state.",
		dedupNote,
	}},
	9: {class: "Stage09Sliding", flags: func(s demostream.Stream, _ string) []string {
		return concat(flag("size", s.WindowSize), flag("slide", s.Slide), flag("watermark-delay", s.WatermarkDelay), flag("allowed-lateness", s.AllowedLateness))
	}, notes: []string{dedupNote}},
	10: {class: "Stage10SeenTtl", flags: func(s demostream.Stream, _ string) []string {
		return concat(windowFlags(s, ""), flag("seen-ttl", s.SeenTTL))
	}, notes: []string{
		"Flink's state TTL is processing time only (docs/PARITY.md, deliberate difference 6): the job forgets an ID on an event-time timer instead.",
	}},
	11: {class: "Stage11Broadcast", flags: func(s demostream.Stream, rules string) []string {
		return concat(windowFlags(s, ""), flag("max-parallelism", int64(s.MaxParallelism)), flag("parallelism", int64(s.Parallelism)),
			[]string{"--rules", rules}, flag("rule-delay", s.RuleDelay))
	}, notes: []string{
		"Your lab gets the rules after the third event and is then restored on 3 subtasks; Flink's job reads events and rules as two sources, on 2 subtasks throughout.",
		"Alerts wait for both inputs' watermarks, so they must not depend on which input came first. Flink judges no rule late (docs/PARITY.md, deliberate difference 7):",
		"the job sets late rules aside itself (DropLateRules), against the rules' own watermark.",
		dedupNote,
	}},
	12: {class: "Stage12RocksDb", flags: windowFlags, notes: []string{
		"Your lab keeps its state in Pebble, checkpoints it after the third event and goes on from a restored copy, to which the source replays;",
		"Flink's job keeps it in RocksDB and runs without a failure. Exactly once means the same output.",
		dedupNote,
	}},
}

// notComparable says, for a stage without a job here, why.
var notComparable = map[int]string{
	7: "idleness is measured in processing time, which a file of events does not have, so Flink's job, reading it at full speed, " +
		"never finds a partition idle (flink/jobs.md); TestIdlenessMatchesFlink in flink/parity compares the two on a manual clock",
}

// Comparable reports whether stage n (1-based) has a comparison, and if
// not, why, in a sentence.
func Comparable(n int) (bool, string) {
	if _, ok := jobs[n]; ok {
		return true, ""
	}
	if why, ok := notComparable[n]; ok {
		return false, fmt.Sprintf("stage %02d has no output de flink can compare: %s", n, why)
	}
	return false, fmt.Sprintf("stage %02d has no comparison in this version of de", n)
}
