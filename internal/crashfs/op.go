package crashfs

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is what an Op does to the traced directory.
type Kind int

// The kinds of Op. Paths are relative to the traced directory.
const (
	Create   Kind = iota // Path is a new, empty regular file
	Mkdir                // Path is a new, empty directory
	Symlink              // Path is a new symbolic link to Target
	Write                // Data is written at Off into the file Path names
	Truncate             // the file Path names gets Size bytes
	Rename               // Path is renamed NewPath, replacing what NewPath named
	Link                 // NewPath is a new name of the file Path names
	Remove               // Path's name is removed (unlink, rmdir)
	Sync                 // fsync or fdatasync of Path: a file's data, or a directory's entries, are durable
	SyncAll              // sync or syncfs: everything is durable
	Mark                 // the traced process reached Step (see MarkStep)
)

// Op is one operation of a traced run on the traced directory, in the
// order the run did them.
type Op struct {
	Kind    Kind
	Path    string // relative to the directory, "/"-separated; "." is the directory itself
	NewPath string // Rename, Link
	Target  string // Symlink
	Off     int64  // Write
	Data    []byte // Write
	Size    int64  // Truncate
	Synced  bool   // Write through a descriptor opened O_SYNC or O_DSYNC: durable at once
	Step    string // Mark: the step's name
	ID      int64  // Mark: the checkpoint it belongs to
	Line    int    // the line of the strace log it comes from

	// The model's identities, which replay needs: the inode the op is
	// about, and the directories and names of its entries.
	ino, dir, newDir int
	name, newName    string
}

// mutates reports whether op changes what a reader of the directory could
// see (Sync, SyncAll and Mark change only what survives a power loss).
func (op Op) mutates() bool {
	return op.Kind != Sync && op.Kind != SyncAll && op.Kind != Mark
}

// String describes op for a failure message, as "rename staged/1 →
// committed/1".
func (op Op) String() string {
	switch op.Kind {
	case Create:
		return "create " + show(op.Path)
	case Mkdir:
		return "mkdir " + show(op.Path)
	case Symlink:
		return fmt.Sprintf("symlink %s → %s", show(op.Path), op.Target)
	case Write:
		s := fmt.Sprintf("write %s bytes [%d, %d)", show(op.Path), op.Off, op.Off+int64(len(op.Data)))
		if op.Synced {
			s += " (O_SYNC)"
		}
		return s
	case Truncate:
		return fmt.Sprintf("truncate %s to %d bytes", show(op.Path), op.Size)
	case Rename:
		return fmt.Sprintf("rename %s → %s", show(op.Path), show(op.NewPath))
	case Link:
		return fmt.Sprintf("link %s → %s", show(op.NewPath), show(op.Path))
	case Remove:
		return "remove " + show(op.Path)
	case Sync:
		return "fsync " + show(op.Path)
	case SyncAll:
		return "sync (everything)"
	case Mark:
		return "step " + stepName(op.Step, op.ID)
	}
	return fmt.Sprintf("op kind %d", int(op.Kind))
}

// show renders a path relative to the traced directory for a message: the
// directory itself is "Dir", a file without a name (removed while open)
// "(a removed file)".
func show(p string) string {
	switch p {
	case ".":
		return "Dir"
	case "":
		return "(a removed file)"
	}
	return p
}

// stepName renders a protocol step as "stored(3)".
func stepName(step string, id int64) string { return step + "(" + strconv.FormatInt(id, 10) + ")" }

// markPrefix starts the path a marker looks up: MarkStep(step, id) calls
// access("/flk-mark/<step>/<id>"), which fails, and strace shows it.
const markPrefix = "/flk-mark/"

// parseMark parses a marker's path into its step and checkpoint id.
func parseMark(path string) (step string, id int64, ok bool) {
	rest, ok := strings.CutPrefix(path, markPrefix)
	if !ok {
		return "", 0, false
	}
	step, n, ok := strings.Cut(rest, "/")
	if !ok {
		return "", 0, false
	}
	id, err := strconv.ParseInt(n, 10, 64)
	return step, id, err == nil && step != ""
}
