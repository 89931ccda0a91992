package windowtest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

// Damaged is an input that a restore must refuse, and what it is, for
// messages: "all but the last byte".
type Damaged struct {
	What  string
	Input []byte
}

// DamagedCopies returns copies of the good snapshot a restore must refuse:
// its first 4 and 17 bytes (inside any plausible header), all but its last
// byte, a byte appended, and a bit flipped at each of SamplePositions.
func DamagedCopies(r *rand.Rand, good []byte) []Damaged {
	out := []Damaged{
		{"the first 4 bytes", good[:min(len(good), 4)]},
		{"the first 17 bytes", good[:min(len(good), 17)]},
		{"all but the last byte", good[:len(good)-1]},
		{"a byte appended", append(bytes.Clone(good), 0)},
	}
	for _, i := range SamplePositions(r, len(good)) {
		flipped := bytes.Clone(good)
		flipped[i] ^= 0x40
		out = append(out, Damaged{fmt.Sprintf("byte %d flipped", i), flipped})
	}
	return out
}

// CheckRefused checks that restore refuses each input with a nil processor
// and an error, and never panics: a snapshot comes from a file that may be
// truncated or corrupted. call is the call's name in messages, a format
// with one %s for the input's What: "RestoreSlidingProcessor(%s)". why
// says, in a failure, what the restore must do to refuse it.
func CheckRefused[T any](t testing.TB, call string, inputs []Damaged, restore func([]byte) (*T, error), why string) {
	t.Helper()
	for _, in := range inputs {
		var p *T
		var err error
		name := fmt.Sprintf(call, in.What)
		panicked := suite.Catch(func() { p, err = restore(in.Input) })
		switch {
		case panicked != "":
			t.Errorf("%s panicked: %v\nIt must return an error: a snapshot comes from a file that may be "+
				"truncated or corrupted.\n%s", name, panicked, suite.HexHead(in.Input))
		case err == nil || p != nil:
			t.Errorf("%s = %v, %v; want nil and an error: %s\n%s", name, p, err, why, suite.HexHead(in.Input))
		}
	}
}
