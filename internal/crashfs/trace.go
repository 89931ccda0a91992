package crashfs

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Trace is what a traced run did to one directory, as operations in the
// order the run did them. Replay it to see the directory as a reader saw it
// at any moment (ReplayLive), or as a power loss at any moment would leave
// it (PowerLoss).
type Trace struct {
	Dir string // the traced directory, absolute
	Ops []Op

	final map[string]file // the live view after the last op
}

// Parse reads a log of strace -f -xx (see Record for the options it needs)
// of a process that started in the working directory cwd and returns what
// it did under dir, an absolute path. System calls on other paths and on
// descriptors of other files are left out; so are failed calls, except the
// markers of MarkStep. The traced directory must have been empty when the
// run started: every file in it is one the trace creates.
func Parse(r io.Reader, dir, cwd string) (*Trace, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("crashfs.Parse: the traced directory %q is not absolute", dir)
	}
	calls, err := readCalls(r)
	if err != nil {
		return nil, err
	}
	ops, m, err := interpret(calls, dir, cwd)
	if err != nil {
		return nil, err
	}
	return &Trace{Dir: filepath.Clean(dir), Ops: ops, final: m.view(false)}, nil
}

// Verify compares the end of the trace with dir, the traced directory
// after the run: the same names, kinds and contents. A difference means the
// run changed files in a way the trace does not show (through mmap, say),
// so that its replays would be wrong.
func (tr *Trace) Verify(dir string) error {
	real, err := readTree(dir)
	if err != nil {
		return err
	}
	var problems []string
	for _, p := range sortedKeys(tr.final) {
		want, got := tr.final[p], real[p]
		switch _, ok := real[p]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: in the trace, not in the directory", p))
		case got.kind != want.kind:
			problems = append(problems, fmt.Sprintf("%s: a different kind of file in the directory", p))
		case want.kind == fileNode && !bytes.Equal(got.data, want.data):
			problems = append(problems, fmt.Sprintf("%s: %d bytes in the directory, %d in the trace, or other bytes", p, len(got.data), len(want.data)))
		case want.kind == symlinkNode && got.target != want.target:
			problems = append(problems, fmt.Sprintf("%s: a link to %s in the directory, to %s in the trace", p, got.target, want.target))
		}
	}
	for _, p := range sortedKeys(real) {
		if _, ok := tr.final[p]; !ok {
			problems = append(problems, fmt.Sprintf("%s: in the directory, not in the trace", p))
		}
	}
	if len(problems) > 0 {
		if len(problems) > 8 {
			problems = append(problems[:8], fmt.Sprintf("… and %d more", len(problems)-8))
		}
		return fmt.Errorf("the trace does not account for what the run left in %s:\n  %s", dir, strings.Join(problems, "\n  "))
	}
	return nil
}

// readTree reads every name under dir, as a view of the model does.
func readTree(dir string) (map[string]file, error) {
	out := map[string]file{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f := file{kind: fileNode}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			f.kind = symlinkNode
			f.target, err = os.Readlink(p)
		case d.IsDir():
			f.kind = dirNode
		default:
			f.data, err = os.ReadFile(p)
		}
		out[filepath.ToSlash(rel)] = f
		return err
	})
	return out, err
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
