package demo

import (
	"github.com/flk-byo/course/internal/picture"

	"fmt"
	"strings"

	"github.com/flk-byo/course/solutions"
)

// demo09 shows one event landing in several sliding windows, and each of
// those windows judging it on its own: firing, correcting, expiring.
func demo09(n *narrator) error {
	cfg := solutions.SlidingConfig{Size: 10, Slide: 4, AllowedLateness: 2}
	p, err := solutions.NewSlidingProcessor(cfg)
	if err != nil {
		return err
	}
	n.say("Sliding windows of 10 ms every 4 ms: a window [s, s+10) starts at every multiple s of 4.")
	n.say("Watermark = largest timestamp seen; allowed lateness 2. 10 is not a multiple of 4, so an")
	n.say("event is in 2 or 3 windows, depending on where it falls.")
	t := newTape(n, p, 0, 0, cfg.AllowedLateness)
	t.windows = picture.Windows{Size: cfg.Size, Slide: cfg.Slide, Lateness: cfg.AllowedLateness}
	windows := func(ts int64) string { return slidingWindows(ts, cfg) }

	n.step("one event, several windows, a negative timestamp among them")
	t.process(ev("e1", "a", -1, 1), "-1 is in "+windows(-1)+": the latest start is -1 floored to a multiple of 4, -4, not 0")
	t.process(ev("e2", "b", 1, 2), "1 is in "+windows(1)+": three windows, where -1 was in two")
	t.process(ev("e3", "a", 5, 3), "5 is in "+windows(5)+"; the watermark, now 5, has passed 2, the end of [-8,2), which fires")
	t.picture()

	n.step("the watermark passes three ends: the windows fire in (End, Start, Key) order")
	t.process(ev("e4", "b", 14, 4), "14 is in "+windows(14)+"; [-4,6), [0,10) and [4,14) fire, oldest end first, keys ascending within a window")

	n.step("late for some of its windows, on time for the others")
	t.process(ev("e5", "a", 9, 5), "9 is in "+windows(9)+" and each judges it on its own at watermark 14: "+
		"[0,10) has expired (14 ≥ 10 + 2) and skips it, [4,14) has fired and re-emits a's result corrected, "+
		"[8,18) is open and counts it")
	t.process(ev("e6", "b", 3, 6), "3 is in "+windows(3)+", all expired: only an event that no window takes is late")
	t.picture()

	n.step("a duplicate")
	t.process(ev("e2", "b", 12, 2), "dedup is per event, before the windows: a redelivery changes nothing in any window, whatever its timestamp")

	n.step("end of input")
	t.flush()
	t.picture()
	n.say("\nDownstream, keeping the last result per window: %s", held(lastPerWindow(t.emitted)))
	n.say("Every window counted each event it holds once, except those that had expired when it came.")
	return nil
}

// slidingWindows renders the windows that hold ts, latest first.
func slidingWindows(ts int64, cfg solutions.SlidingConfig) string {
	var ws []string
	for _, s := range solutions.AssignSlidingWindows(ts, cfg.Size, cfg.Slide) {
		ws = append(ws, fmt.Sprintf("[%d,%d)", s, s+cfg.Size))
	}
	return strings.Join(ws, " ")
}
