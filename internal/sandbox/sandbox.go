// Package sandbox runs the test binaries of a grading run as another user,
// so that the code they run (the student's) can change nothing of the
// grader's: not de, not the tree it grades, not its reports, not the CI
// job's outputs ($GITHUB_OUTPUT, the step summary) nor the steps after it.
//
// The verdict channel (internal/verdict) keeps what the student's code
// prints from passing for a result; it cannot keep that code from writing
// files its user may write. In a CI job every step runs as one user, so
// lab code run by one grading step could rewrite the de binary the next
// step runs, or append a forged result to $GITHUB_OUTPUT. Run as root,
// de grade --as-user NAME grades a copy of the tree that root owns, builds
// it as root, and runs each test binary through a launcher (go test
// -exec) that copies the binary where NAME can run it, drops to NAME, and
// executes it, keeping the verdict channel open. NAME can read the copy and
// write its own temporary folder, and nothing else of the grader's.
package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/flk-byo/course/internal/coursedir"
)

// ExecCommand is the hidden de command that is the launcher: go test runs
// it, as root, in place of each test binary ("de sandbox-exec DIR UID GID
// BINARY ARGS...").
const ExecCommand = "sandbox-exec"

// Sandbox is one grading run's: a folder that root owns, with the copy of
// the tree that is graded, and the user the tests run as.
type Sandbox struct {
	dir      string // 0755, root's: tree/, and the launcher's bin-*/ and tmp-*/
	tree     string
	uid, gid int
	launcher string
}

// New prepares a sandbox for grading the course tree at root as the user
// named name: it copies what grading reads and builds (go.mod, go.sum,
// kit, internal, stages, drills, solutions and lab; regular files only)
// into a new folder that root owns and every user may read. launcher is
// the de binary to run as the launcher. It needs Linux and root, and a
// user other than root.
func New(root, name, launcher string) (*Sandbox, error) {
	if runtime.GOOS != "linux" {
		return nil, errors.New("--as-user runs the tests as another user on Linux only")
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("--as-user runs the tests as another user, which only root can: run de grade with sudo (docs/GRADING.md)")
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--as-user %s: %w", name, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--as-user %s: not a numeric uid and gid (%s:%s)", name, u.Uid, u.Gid)
	}
	if uid == 0 {
		return nil, fmt.Errorf("--as-user %s: that is root, whom nothing stops", name)
	}
	parent, err := reachable(os.TempDir(), "/tmp", "/var/tmp")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "de-grade-")
	if err != nil {
		return nil, err
	}
	s := &Sandbox{dir: dir, tree: filepath.Join(dir, "tree"), uid: uid, gid: gid, launcher: launcher}
	if err := os.Chmod(dir, 0o755); err != nil {
		s.Close()
		return nil, err
	}
	if err := coursedir.CopyForGrading(root, s.tree); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// reachable returns the first of dirs that every user can reach: each
// folder on its path searchable by others. $TMPDIR may be private (a
// test's, a CI job's), and the user must reach the sandbox.
func reachable(dirs ...string) (string, error) {
	for _, d := range dirs {
		d, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		ok := true
		for p := d; ok; p = filepath.Dir(p) {
			fi, err := os.Stat(p)
			ok = err == nil && fi.IsDir() && fi.Mode().Perm()&0o001 != 0
			if p == filepath.Dir(p) {
				break
			}
		}
		if ok {
			return d, nil
		}
	}
	return "", fmt.Errorf("--as-user: none of %s is a folder every user can reach, to hold the tests", strings.Join(dirs, ", "))
}

// Tree is the copy of the course tree to grade: root's, and readable by
// the user.
func (s *Sandbox) Tree() string { return s.tree }

// Exec is the value of go test's -exec flag that runs every test binary
// through the launcher, as the user.
func (s *Sandbox) Exec() string {
	return strings.Join([]string{quote(s.launcher), ExecCommand, quote(s.dir), strconv.Itoa(s.uid), strconv.Itoa(s.gid)}, " ")
}

// quote quotes a path for go test's -exec, which splits on spaces and
// honours quotes.
func quote(p string) string {
	if strings.ContainsAny(p, " '\"") {
		return strconv.Quote(p)
	}
	return p
}

// Close removes the sandbox: the copy of the tree, the binaries and what
// the tests left in their temporary folders.
func (s *Sandbox) Close() error { return os.RemoveAll(s.dir) }

// environment is what a test binary's environment keeps of the
// launcher's: everything but the CI job's own files and tokens, with its
// temporary folder and home in the user's own folder.
func environment(tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "ACTIONS_"), strings.HasPrefix(k, "RUNNER_"),
			k == "TMPDIR", k == "HOME", k == "SUDO_COMMAND", k == "SUDO_USER", k == "SUDO_UID", k == "SUDO_GID":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TMPDIR="+tmp, "HOME="+tmp)
}

// copyExecutable copies the file at src to dst, executable by everyone.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
