package windowtest

import (
	"bytes"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// CheckRestoreInput checks what a stage's restore function made of one
// input of its fuzz target, by the contract every Restore… of the course
// shares: it returns a processor or an error, never both, never neither,
// and never panics (a snapshot comes from a file that may be truncated,
// corrupted or not a snapshot at all); and a processor it accepts is in a
// state of its own, so its snapshot restores and snapshots to the same
// bytes.
//
// call names the call in messages, "RestoreProcessor(<hex>)"; restore
// makes it; snapshot and restoreOf are the stage's helpers, which stop t
// when they fail. lost lists what a restore might lose or change, for the
// message: "a window, a key's tally, a seen ID, the watermark". It returns
// the accepted processor, for the stage to exercise, or nil when the input
// was refused with an error.
func CheckRestoreInput[T any](t testing.TB, call string, restore func() (*T, error),
	snapshot func(testing.TB, *T) []byte, restoreOf func(testing.TB, []byte) *T, lost string) *T {
	t.Helper()
	var p *T
	var err error
	panicked := suite.Catch(func() { p, err = restore() })
	switch {
	case panicked != "":
		t.Fatalf("%s panicked: %s\nIt must return an error, not panic: a snapshot comes from a file that\n"+
			"may be truncated, corrupted or not a snapshot at all. Check every length against the bytes left before slicing.",
			call, panicked)
	case err != nil && p != nil:
		t.Fatalf("%s returned the error %q AND a processor; on error, return nil", call, err)
	case err != nil:
		return nil
	case p == nil:
		t.Fatalf("%s returned neither a processor nor an error", call)
	}
	snap := snapshot(t, p)
	if again := snapshot(t, restoreOf(t, snap)); !bytes.Equal(snap, again) {
		t.Fatalf("%s was accepted, but the processor it returned snapshots to bytes that\n"+
			"restore and snapshot differently:\n%s\nA restored processor is in the same state as the one snapshotted, so its\n"+
			"snapshot is the same bytes. A difference means the restore lost or changed something (%s),\n"+
			"or the encoding depends on map order.", call, suite.ByteDiff(snap, again), lost)
	}
	return p
}

// DamagedSnapshots returns the ways a fuzz target's seed corpus damages a
// good snapshot: prefixes that end inside any plausible header (the format
// is the learner's, so every length is a guess, which the fuzzer takes
// from), half of it, all but its last byte; one byte too many; and a bit
// flipped at the start, inside the header, a third and half way in, and in
// the last byte.
func DamagedSnapshots(snap []byte) [][]byte {
	var out [][]byte
	for _, n := range []int{1, 4, 5, 8, 9, 12, 13, 16, 17, 21, 24, 32, len(snap) / 2, len(snap) - 1} {
		if n > 0 && n < len(snap) {
			out = append(out, bytes.Clone(snap[:n]))
		}
	}
	out = append(out, append(bytes.Clone(snap), 0))
	flips := []int{0, 4, 5, len(snap) / 3, len(snap) / 2, len(snap) - 1}
	for k, i := range flips {
		if i >= 0 && i < len(snap) && !slices.Contains(flips[:k], i) {
			flipped := bytes.Clone(snap)
			flipped[i] ^= 0x01
			out = append(out, flipped)
		}
	}
	return out
}

// AddSnapshotSeeds adds to a restore fuzz target's seed corpus each good
// snapshot, its DamagedSnapshots, and three inputs that are no snapshot in
// any format: nothing, 40 bytes of 0xff and 40 zero bytes. The target's
// one argument is the bytes to restore.
func AddSnapshotSeeds(f *testing.F, snaps [][]byte) {
	f.Helper()
	for _, snap := range snaps {
		f.Add(snap)
		for _, damaged := range DamagedSnapshots(snap) {
			f.Add(damaged)
		}
	}
	f.Add([]byte(nil))
	f.Add(bytes.Repeat([]byte{0xff}, 40))
	f.Add(make([]byte, 40))
}
