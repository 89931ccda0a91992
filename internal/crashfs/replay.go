package crashfs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PageSize is the unit in which ReplayLive shows a write to a reader. POSIX
// gives a reader of a regular file no atomicity: a concurrent read may see
// any part of a write done, and in practice the kernel copies a write into
// the page cache one page at a time.
const PageSize = 4096

// ReplayLive replays the trace into mirror, an empty directory, and calls
// after once for each change a reader could see, with mirror in the state
// right after it: after each operation that changes names or sizes, and
// after each page of a write (a piece of op.Data from op.Off to the next
// page boundary or the end). It calls after for Sync, SyncAll and Mark too,
// which change nothing in mirror, so that after sees every step. i is the
// index of the operation in tr.Ops. An error from after stops the replay
// and is returned.
func (tr *Trace) ReplayLive(mirror string, after func(i int, op Op) error) error {
	for i, op := range tr.Ops {
		steps := []Op{op}
		if op.Kind == Write {
			steps = pages(op)
		}
		for _, s := range steps {
			if err := mirrorOp(mirror, s); err != nil {
				return fmt.Errorf("replay of op %d (%v, trace line %d): %w", i, s, s.Line, err)
			}
			if err := after(i, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// pages splits a write at the page boundaries of the file.
func pages(op Op) []Op {
	var out []Op
	for off, data := op.Off, op.Data; len(data) > 0; {
		n := min(int64(len(data)), (off/PageSize+1)*PageSize-off)
		piece := op
		piece.Off, piece.Data = off, data[:n]
		out = append(out, piece)
		off, data = off+n, data[n:]
	}
	return out
}

// mirrorOp applies op to the directory mirror.
func mirrorOp(mirror string, op Op) error {
	p := filepath.Join(mirror, filepath.FromSlash(op.Path))
	np := filepath.Join(mirror, filepath.FromSlash(op.NewPath))
	switch op.Kind {
	case Create:
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		return f.Close()
	case Mkdir:
		return os.Mkdir(p, 0o755)
	case Symlink:
		return os.Symlink(op.Target, p)
	case Write:
		if op.Path == "" {
			return nil // a file that has no name any more: no reader can see it
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if _, err := f.WriteAt(op.Data, op.Off); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	case Truncate:
		if op.Path == "" {
			return nil
		}
		return os.Truncate(p, op.Size)
	case Rename:
		return os.Rename(p, np)
	case Link:
		return os.Link(p, np)
	case Remove:
		return os.Remove(p)
	}
	return nil
}

// Cuts returns the moments at which a power loss leaves a state that no
// later moment before the next one leaves: each index i of an operation
// that changes what is durable (a power loss right before it is the last
// moment of the state before), and len(tr.Ops), the end of the run. A
// power loss at any other moment leaves the same files as one at the next
// cut; the cut is the strictest of them for "nothing committed is lost",
// since the most has been committed by then.
func (tr *Trace) Cuts() []int {
	m := newModel()
	var cuts []int
	for i, op := range tr.Ops {
		if m.apply(op) {
			cuts = append(cuts, i)
		}
	}
	return append(cuts, len(tr.Ops))
}

// PowerLoss writes into dir, an empty directory, what a power loss right
// before tr.Ops[at] leaves of the traced directory (at == len(tr.Ops): at
// the end of the run), and returns a report of what survived, for a
// failure message.
func (tr *Trace) PowerLoss(at int, dir string) (report string, err error) {
	if at < 0 || at > len(tr.Ops) {
		return "", fmt.Errorf("crashfs: power loss at op %d of %d", at, len(tr.Ops))
	}
	m := newModel()
	for _, op := range tr.Ops[:at] {
		m.apply(op)
	}
	if err := materialize(m.view(true), dir); err != nil {
		return "", err
	}
	return survival(m), nil
}

// survival describes, path by path, what a power loss leaves of the live
// view of m: what is lost, cut short or back from the dead, and why.
func survival(m *model) string {
	live, durable := m.view(false), m.view(true)
	var b strings.Builder
	row := func(p, what string) { fmt.Fprintf(&b, "  %-28s %s\n", p, what) }
	size := func(f file) string {
		if f.kind == dirNode {
			return "folder"
		}
		return fmt.Sprintf("%d bytes", len(f.data))
	}
	// why lists the changes of ino's names that are not durable yet.
	why := func(ino int) string {
		var parts []string
		for _, c := range m.pendingOf(ino) {
			parts = append(parts, fmt.Sprintf("%v (%s not fsynced since)", c.op, show(m.path(c.dir))))
		}
		return strings.Join(parts, ", ")
	}
	for _, p := range sortedKeys(live) {
		l := live[p]
		d, ok := durable[p]
		switch {
		case !ok && parentLost(p, durable):
			row(p, fmt.Sprintf("lost (%s) with the folder holding it", size(l)))
		case !ok:
			row(p, fmt.Sprintf("lost (%s): not durable yet: %s", size(l), why(l.ino)))
		case d.ino != l.ino:
			row(p, fmt.Sprintf("%s: the file this name had before, since %s", size(d), why(l.ino)))
		case l.kind == fileNode && len(d.data) == 0 && len(l.data) > 0:
			row(p, fmt.Sprintf("0 of %d bytes survive: never fsynced", len(l.data)))
		case l.kind == fileNode && string(d.data) != string(l.data):
			row(p, fmt.Sprintf("%d of %d bytes survive, as of its last fsync: what was written after it is lost", len(d.data), len(l.data)))
		default:
			row(p, size(l)+", whole")
		}
	}
	for _, p := range sortedKeys(durable) {
		if _, ok := live[p]; !ok {
			row(p, fmt.Sprintf("back (%s): not durable yet: %s", size(durable[p]), why(durable[p].ino)))
		}
	}
	if b.Len() == 0 {
		return "  (the directory is empty)\n"
	}
	return b.String()
}

// parentLost reports whether a folder above p is missing from view.
func parentLost(p string, view map[string]file) bool {
	for dir := filepath.ToSlash(filepath.Dir(p)); dir != "."; dir = filepath.ToSlash(filepath.Dir(dir)) {
		if _, ok := view[dir]; !ok {
			return true
		}
	}
	return false
}
