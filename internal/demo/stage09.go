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
	s0 := stream(9)
	e := s0.Events
	cfg := solutions.SlidingConfig{Size: s0.WindowSize, Slide: s0.Slide, WatermarkDelay: s0.WatermarkDelay, AllowedLateness: s0.AllowedLateness}
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
	t.process(e[0], "-1 is in "+windows(-1)+": the latest start is -1 floored to a multiple of 4, -4, not 0")
	t.process(e[1], "1 is in "+windows(1)+": three windows, where -1 was in two")
	t.process(e[2], "5 is in "+windows(5)+"; the watermark, now 5, has passed 2, the end of [-8,2), which fires")
	t.picture()

	n.step("the watermark passes three ends: the windows fire in (End, Start, Key) order")
	t.process(e[3], "14 is in "+windows(14)+"; [-4,6), [0,10) and [4,14) fire, oldest end first, keys ascending within a window")

	n.step("late for some of its windows, on time for the others")
	t.process(e[4], "9 is in "+windows(9)+" and each judges it on its own at watermark 14: "+
		"[0,10) has expired (14 ≥ 10 + 2) and skips it, [4,14) has fired and re-emits a's result corrected, "+
		"[8,18) is open and counts it")
	t.process(e[5], "3 is in "+windows(3)+", all expired: only an event that no window takes is late")
	t.picture()

	n.step("a duplicate")
	t.process(e[6], "dedup is per event, before the windows: a redelivery changes nothing in any window, whatever its timestamp")

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
