package crashfs

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// model is the traced directory as a file system holds it, in two views:
//
//   - live: every operation applied, what a reader sees;
//   - durable: what a power loss leaves. A file's data is durable as of its
//     last fsync (or, for a write through an O_SYNC descriptor, at once). A
//     change of a directory entry (create, mkdir, link, rename, remove) is
//     durable once the directory it is charged to has been fsynced after
//     it: the directory holding the new name, for a rename its target
//     directory, for a removal the directory it was removed from. It takes
//     with it the earlier changes of the same file or the same name, which
//     no file system makes durable out of order (a rename cannot outlive
//     the creation of what it renamed). A sync of everything makes
//     everything durable. The traced directory itself is durable: the test
//     made it.
//
// This is the strictest outcome POSIX allows, and the one a careful program
// must survive: a file system may write anything back earlier, but it only
// promises what was fsynced.
type model struct {
	nodes   map[int]*node
	next    int      // the next inode number
	seq     int      // numbers entry changes, to make them durable in order
	pending []change // entry changes not durable yet, in order
}

// nodeKind is what an inode is.
type nodeKind int

const (
	fileNode nodeKind = iota
	dirNode
	symlinkNode
)

// node is one inode of the model.
type node struct {
	kind   nodeKind
	data   []byte  // a file's contents
	synced []byte  // a file's durable contents
	target string  // a symlink's target
	names  []entry // the live names: one for a directory, any number for a file

	entries map[string]int // a directory's live entries: name → inode
	durable map[string]int // a directory's durable entries
}

// entry is a name in a directory.
type entry struct {
	dir  int
	name string
}

// change is an entry change waiting for an fsync of dir, the directory it
// is charged to.
type change struct {
	seq, dir int
	op       Op
}

// rootIno is the inode of the traced directory.
const rootIno = 1

func newModel() *model {
	m := &model{nodes: map[int]*node{}, next: rootIno + 1}
	m.nodes[rootIno] = &node{kind: dirNode, entries: map[string]int{}, durable: map[string]int{}}
	return m
}

// newIno returns a fresh inode number.
func (m *model) newIno() int {
	m.next++
	return m.next - 1
}

// apply applies op to both views and reports whether the durable view
// changed.
func (m *model) apply(op Op) (durableChanged bool) {
	switch op.Kind {
	case Create, Mkdir, Symlink:
		n := &node{kind: fileNode}
		switch op.Kind {
		case Mkdir:
			n = &node{kind: dirNode, entries: map[string]int{}, durable: map[string]int{}}
		case Symlink:
			n = &node{kind: symlinkNode, target: op.Target}
		}
		m.nodes[op.ino] = n
		m.addName(op.ino, op.dir, op.name)
		m.charge(op.dir, op)
	case Write:
		n := m.nodes[op.ino]
		n.data = patch(n.data, op.Off, op.Data)
		if op.Synced {
			before := n.synced
			n.synced = patch(slices.Clone(n.synced), op.Off, op.Data)
			return !bytes.Equal(before, n.synced)
		}
	case Truncate:
		n := m.nodes[op.ino]
		n.data = resize(n.data, op.Size)
	case Rename:
		if old, ok := m.nodes[op.newDir].entries[op.newName]; ok {
			m.removeName(old, op.newDir, op.newName)
		}
		m.removeName(op.ino, op.dir, op.name)
		m.addName(op.ino, op.newDir, op.newName)
		m.charge(op.newDir, op)
	case Link:
		m.addName(op.ino, op.newDir, op.newName)
		m.charge(op.newDir, op)
	case Remove:
		m.removeName(op.ino, op.dir, op.name)
		m.charge(op.dir, op)
	case Sync:
		n := m.nodes[op.ino]
		if n.kind == dirNode {
			return m.flush(func(c change) bool { return c.dir == op.ino })
		}
		if bytes.Equal(n.synced, n.data) {
			return false
		}
		n.synced = slices.Clone(n.data)
		return true
	case SyncAll:
		changed := m.flush(func(change) bool { return true })
		for _, n := range m.nodes {
			if n.kind == fileNode && !bytes.Equal(n.synced, n.data) {
				n.synced, changed = slices.Clone(n.data), true
			}
		}
		return changed
	}
	return false
}

// charge records an entry change as waiting for an fsync of dir.
func (m *model) charge(dir int, op Op) {
	m.seq++
	m.pending = append(m.pending, change{m.seq, dir, op})
}

// flush makes the pending changes that match durable, in order, and reports
// whether the durable view changed.
func (m *model) flush(match func(change) bool) bool {
	changed := false
	for {
		i := slices.IndexFunc(m.pending, match)
		if i < 0 {
			return changed
		}
		changed = m.commit(m.pending[i].seq) || changed
	}
}

// commit makes the pending change seq durable, after the earlier pending
// changes of the same inode or name.
func (m *model) commit(seq int) bool {
	at := func() int { return slices.IndexFunc(m.pending, func(c change) bool { return c.seq == seq }) }
	c := m.pending[at()]
	changed := false
	for {
		i := at()
		j := slices.IndexFunc(m.pending[:i], func(e change) bool { return related(e.op, c.op) })
		if j < 0 {
			m.pending = slices.Delete(m.pending, i, i+1)
			return m.makeDurable(c.op) || changed
		}
		changed = m.commit(m.pending[j].seq) || changed
	}
}

// related reports whether two entry changes touch the same inode or name.
func related(a, b Op) bool {
	if a.ino == b.ino {
		return true
	}
	for _, x := range a.entries() {
		if slices.Contains(b.entries(), x) {
			return true
		}
	}
	return false
}

// entries returns the names an entry change touches.
func (op Op) entries() []entry {
	switch op.Kind {
	case Create, Mkdir, Symlink, Remove:
		return []entry{{op.dir, op.name}}
	case Link:
		return []entry{{op.newDir, op.newName}}
	case Rename:
		return []entry{{op.dir, op.name}, {op.newDir, op.newName}}
	}
	return nil
}

// pendingOf returns the entry changes of ino that are not durable yet.
func (m *model) pendingOf(ino int) []change {
	var out []change
	for _, c := range m.pending {
		if c.op.ino == ino {
			out = append(out, c)
		}
	}
	return out
}

// makeDurable applies an entry change to the durable view and reports
// whether that changed it.
func (m *model) makeDurable(op Op) bool {
	set := func(dir int, name string, ino int) bool {
		d := m.nodes[dir].durable
		if cur, ok := d[name]; ok && cur == ino {
			return false
		}
		d[name] = ino
		return true
	}
	unset := func(dir int, name string, ino int) bool {
		d := m.nodes[dir].durable
		if cur, ok := d[name]; !ok || cur != ino {
			return false // the name never durably was this inode
		}
		delete(d, name)
		return true
	}
	switch op.Kind {
	case Create, Mkdir, Symlink:
		return set(op.dir, op.name, op.ino)
	case Link:
		return set(op.newDir, op.newName, op.ino)
	case Rename:
		removed := unset(op.dir, op.name, op.ino)
		return set(op.newDir, op.newName, op.ino) || removed
	case Remove:
		return unset(op.dir, op.name, op.ino)
	}
	return false
}

// addName gives ino the live name name in dir.
func (m *model) addName(ino, dir int, name string) {
	m.nodes[dir].entries[name] = ino
	n := m.nodes[ino]
	n.names = append(n.names, entry{dir, name})
}

// removeName takes the live name name in dir away from ino.
func (m *model) removeName(ino, dir int, name string) {
	delete(m.nodes[dir].entries, name)
	n := m.nodes[ino]
	n.names = slices.DeleteFunc(n.names, func(e entry) bool { return e == entry{dir, name} })
}

// path returns a live path of ino relative to the traced directory ("."
// for it), or "" when ino has no name left.
func (m *model) path(ino int) string {
	if ino == rootIno {
		return "."
	}
	n := m.nodes[ino]
	if n == nil || len(n.names) == 0 {
		return ""
	}
	e := n.names[0]
	parent := m.path(e.dir)
	if parent == "" {
		return ""
	}
	return path.Join(parent, e.name)
}

// lookup returns the inode the path rel (relative to the traced directory,
// cleaned, "/"-separated) names in the live view, following symbolic links
// in its directories and, with follow, in its last element. found is false
// when its directory exists but the name does not; err is for a directory
// that does not exist, or a link that leads outside.
func (m *model) lookup(rel string, follow bool) (ino int, found bool, err error) {
	dir, name, err := m.lookupParent(rel)
	if err != nil || name == "" {
		return dir, err == nil, err
	}
	ino, found = m.nodes[dir].entries[name]
	if found && follow && m.nodes[ino].kind == symlinkNode {
		return m.followLink(dir, ino, 0)
	}
	return ino, found, nil
}

// lookupParent returns the directory that holds rel's last element, and
// that element ("" when rel is the traced directory itself).
func (m *model) lookupParent(rel string) (dir int, name string, err error) {
	return m.walk(rootIno, rel, 0)
}

// walk resolves rel from the directory from, as lookupParent does; depth
// counts the symbolic links followed so far.
func (m *model) walk(from int, rel string, depth int) (dir int, name string, err error) {
	if rel == "." || rel == "" {
		return from, "", nil
	}
	parts := strings.Split(rel, "/")
	dir = from
	for _, p := range parts[:len(parts)-1] {
		next, ok := m.nodes[dir].entries[p]
		if !ok {
			return 0, "", fmt.Errorf("%s: no directory %s in the model", rel, p)
		}
		if m.nodes[next].kind == symlinkNode {
			var found bool
			if next, found, err = m.followLink(dir, next, depth); err != nil || !found {
				return 0, "", fmt.Errorf("%s: the link %s leads nowhere in the traced directory (%v)", rel, p, err)
			}
		}
		if m.nodes[next].kind != dirNode {
			return 0, "", fmt.Errorf("%s: %s is not a directory", rel, p)
		}
		dir = next
	}
	return dir, parts[len(parts)-1], nil
}

// followLink resolves the symbolic link ino, which is in dir. Only relative
// links within the traced directory can be followed.
func (m *model) followLink(dir, ino, depth int) (int, bool, error) {
	if depth > 40 {
		return 0, false, fmt.Errorf("too many levels of symbolic links")
	}
	target := m.nodes[ino].target
	if path.IsAbs(target) {
		return 0, false, fmt.Errorf("the link to %s is absolute: the model follows only relative links", target)
	}
	rel := path.Join(m.path(dir), target)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return 0, false, fmt.Errorf("the link to %s leads out of the traced directory", target)
	}
	d, name, err := m.walk(rootIno, rel, depth+1)
	if err != nil || name == "" {
		return d, err == nil, err
	}
	next, found := m.nodes[d].entries[name]
	if found && m.nodes[next].kind == symlinkNode {
		return m.followLink(d, next, depth+1)
	}
	return next, found, nil
}

// patch returns data with b written at off, grown (with zeros) as needed.
func patch(data []byte, off int64, b []byte) []byte {
	if end := off + int64(len(b)); end > int64(len(data)) {
		data = resize(data, end)
	}
	copy(data[off:], b)
	return data
}

// resize returns data cut or zero-extended to size bytes.
func resize(data []byte, size int64) []byte {
	if size <= int64(len(data)) {
		return data[:size:size]
	}
	return append(data, make([]byte, size-int64(len(data)))...)
}

// file is one name of a view of the model, for materializing and
// comparing views.
type file struct {
	kind   nodeKind
	data   []byte // a file's contents in that view
	target string // a symlink's target
	ino    int
}

// view returns every name under the traced directory in the live or the
// durable view, by path. A directory whose own name is not durable takes
// what it holds with it.
func (m *model) view(durable bool) map[string]file {
	out := map[string]file{}
	seen := map[int]bool{rootIno: true}
	var walk func(dir int, prefix string)
	walk = func(dir int, prefix string) {
		entries := m.nodes[dir].entries
		if durable {
			entries = m.nodes[dir].durable
		}
		for name, ino := range entries {
			n, p := m.nodes[ino], path.Join(prefix, name)
			f := file{kind: n.kind, target: n.target, ino: ino, data: n.data}
			if durable {
				f.data = n.synced
			}
			out[p] = f
			if n.kind == dirNode && !seen[ino] { // a durable view may hold a directory twice
				seen[ino] = true
				walk(ino, p)
			}
		}
	}
	walk(rootIno, "")
	return out
}

// materialize writes a view into dir, which must exist and be empty.
func materialize(v map[string]file, dir string) error {
	paths := make([]string, 0, len(v))
	for p := range v {
		paths = append(paths, p)
	}
	slices.Sort(paths) // a directory before what it holds
	for _, p := range paths {
		f, full := v[p], filepath.Join(dir, filepath.FromSlash(p))
		var err error
		switch f.kind {
		case dirNode:
			err = os.Mkdir(full, 0o755)
		case symlinkNode:
			err = os.Symlink(f.target, full)
		default:
			err = os.WriteFile(full, f.data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("materialize %s: %w", p, err)
		}
	}
	return nil
}
