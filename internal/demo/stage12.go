package demo

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
	"github.com/flk-byo/course/solutions/pebblestate"
)

// demo12 runs stage 01's windows on the disk backend: the state as the
// keys Pebble holds, a checkpoint, a crash, and a restore from the
// checkpoint that goes on exactly once.
func demo12(n *narrator) error {
	dir, err := os.MkdirTemp("", "flk-demo12-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	live, err := pebblestate.OpenPebbleBackend(filepath.Join(dir, "live"), pebblestate.MinPebbleBudget)
	if err != nil {
		return err
	}
	defer live.Close()
	s := stream(12)
	before, replay, rest := s.Events[:s.RestoreAfter], s.Events[s.RestoreAfter], s.Events[s.RestoreAfter+1:]
	cfg := solutions.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness}
	p, err := solutions.NewBackendProcessor(cfg, live)
	if err != nil {
		return err
	}
	n.say("Stage 1's tumbling windows (10 ms, watermark = largest timestamp − 5), with every piece of")
	n.say("state in Pebble, on disk: the processor itself holds none.")
	t := newTape(n, p, cfg.WindowSize, 0, 0)

	n.step("events go in; their state becomes keys in the store")
	for _, e := range before {
		t.process(e, "")
	}
	if err := showKeys(n, live); err != nil {
		return err
	}

	n.step("a checkpoint: Pebble's own, hard links to files that never change")
	ckpt := filepath.Join(dir, "checkpoint-1")
	if err := p.Checkpoint(ckpt); err != nil {
		return err
	}
	n.say("checkpoint written to its own directory; the job commits its name with the output so far")

	n.step("the job goes on, then dies")
	for _, e := range rest {
		t.process(e, "")
	}
	n.say("the process is killed here: what it emitted after the checkpoint was never committed")

	n.step("restore a copy of the checkpoint, and replay the source from there")
	restored, err := pebblestate.RestorePebbleBackend(ckpt, filepath.Join(dir, "restored"), pebblestate.MinPebbleBudget)
	if err != nil {
		return err
	}
	defer restored.Close()
	q, err := solutions.NewBackendProcessor(cfg, restored)
	if err != nil {
		return err
	}
	n.say("restored: watermark %s, as at the checkpoint; the live directory is not read", kit.FormatWatermark(q.Watermark()))
	r := newTape(n, q, cfg.WindowSize, 0, 0)
	r.resumeFrom(t, len(before))
	r.process(replay, "e3's ID is in the checkpoint: the replayed duplicate changes nothing")
	for _, e := range rest {
		r.process(e, "")
	}
	r.flush()
	r.picture()
	whole, err := solutions.NewProcessor(cfg)
	if err != nil {
		return err
	}
	var want []kit.Result
	for _, e := range append(slices.Clone(before), rest...) {
		want = append(want, whole.Process(e)...)
	}
	want = append(want, whole.Flush()...)
	if !slices.Equal(r.emitted, want) {
		return fmt.Errorf("demo 12: the restored job's output %v differs from an uninterrupted run's %v", r.emitted, want)
	}
	n.say("every result exactly once, as in a run that never crashed: the committed output, then the replay's")
	return nil
}

// showKeys lists every key in b with what it holds: the key group and the
// kind of state, or the unkeyed entries under 0xFF 0xFF.
func showKeys(n *narrator, b solutions.StateBackend) error {
	n.say("the store now holds, in key order:")
	return b.Scan(nil, nil, func(k, v []byte) error {
		kg := binary.BigEndian.Uint16(k)
		switch {
		case kg == 0xFFFF && k[2] == 't':
			n.say("  0xFFFF  timer   window ending at %d", int64(binary.BigEndian.Uint64(k[3:])^(1<<63)))
		case kg == 0xFFFF:
			n.say("  0xFFFF  meta    config and watermark")
		case k[2] == 's':
			n.say("  kg %3d  seen    ID %s", kg, kit.ShowString(string(k[3:])))
		default:
			count, _ := binary.Uvarint(v)
			end := int64(binary.BigEndian.Uint64(k[3:11]) ^ (1 << 63))
			n.say("  kg %3d  tally   key %s in the window ending at %d: count %d", kg, kit.ShowString(string(k[11:])), end, count)
		}
		return nil
	})
}
