package crashfs

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// atFDCWD is how strace prints the "current directory" dirfd.
const atFDCWD = "AT_FDCWD"

// openFile is an open file description: what a descriptor refers to.
// Descriptors made by dup share one, offset included.
type openFile struct {
	ino     int    // the inode, when it is under the traced directory (else 0)
	outside string // the absolute path it was opened at, when it is not
	pos     int64  // the file offset
	append  bool   // O_APPEND: every write goes to the end
	synced  bool   // O_SYNC or O_DSYNC: every write is durable at once
}

// interpreter turns the system calls of a trace into operations on the
// traced directory, keeping the live model up to date to resolve paths and
// descriptors.
type interpreter struct {
	dir string // the traced directory, absolute and clean
	cwd string // the traced process's working directory
	m   *model
	fds map[int64]*openFile
	ops []Op
}

// interpret returns the operations calls did under dir (absolute), for a
// process that started in cwd, with the model they leave.
func interpret(calls []call, dir, cwd string) ([]Op, *model, error) {
	in := &interpreter{dir: filepath.Clean(dir), cwd: cwd, m: newModel(), fds: map[int64]*openFile{}}
	for _, c := range calls {
		if err := in.call(c); err != nil {
			return nil, nil, fmt.Errorf("trace line %d (%s): %w", c.line, c.name, err)
		}
	}
	return in.ops, in.m, nil
}

// emit records op and applies it to the model.
func (in *interpreter) emit(op Op, line int) {
	op.Line = line
	in.m.apply(op)
	in.ops = append(in.ops, op)
}

// call interprets one system call.
func (in *interpreter) call(c call) error {
	switch c.name {
	case "access", "faccessat", "faccessat2":
		return in.mark(c)
	}
	if c.failed() {
		return nil // a failed call changes nothing
	}
	switch c.name {
	case "open", "creat":
		flags := "O_WRONLY|O_CREAT|O_TRUNC"
		if c.name == "open" {
			flags = arg(c, 1)
		}
		return in.open(c, atFDCWD, arg(c, 0), flagSet(flags))
	case "openat":
		return in.open(c, arg(c, 0), arg(c, 1), flagSet(arg(c, 2)))
	case "openat2":
		return in.openat2(c)
	case "close":
		delete(in.fds, fdArg(c, 0))
	case "dup":
		in.dup(fdArg(c, 0), c.ret)
	case "dup2", "dup3":
		in.dup(fdArg(c, 0), fdArg(c, 1))
	case "fcntl":
		return in.fcntl(c)
	case "chdir":
		p, err := in.pathArg(c, atFDCWD, 0)
		in.cwd = p
		return err
	case "fchdir":
		if f := in.fds[fdArg(c, 0)]; f != nil {
			in.cwd = in.abs(f)
		}
	case "read", "readv":
		if f := in.fds[fdArg(c, 0)]; f != nil {
			f.pos += c.ret
		}
	case "lseek":
		if f := in.fds[fdArg(c, 0)]; f != nil {
			f.pos = c.ret
		}
	case "write", "pwrite64", "writev", "pwritev", "pwritev2":
		return in.write(c)
	case "copy_file_range", "sendfile", "sendfile64":
		return in.copyRange(c)
	case "ftruncate":
		if f := in.fds[fdArg(c, 0)]; f != nil && f.ino != 0 {
			size, err := parseInt(arg(c, 1))
			if err != nil {
				return err
			}
			in.emit(Op{Kind: Truncate, Path: in.m.path(f.ino), Size: size, ino: f.ino}, c.line)
		}
	case "truncate":
		return in.truncatePath(c)
	case "fallocate":
		return in.fallocate(c)
	case "fsync", "fdatasync":
		if f := in.fds[fdArg(c, 0)]; f != nil && f.ino != 0 {
			in.emit(Op{Kind: Sync, Path: in.m.path(f.ino), ino: f.ino}, c.line)
		}
	case "sync", "syncfs":
		in.emit(Op{Kind: SyncAll}, c.line)
	case "mkdir":
		return in.create(c, Mkdir, atFDCWD, 0, "")
	case "mkdirat":
		return in.create(c, Mkdir, arg(c, 0), 1, "")
	case "symlink", "symlinkat":
		target, _, err := parseString(arg(c, 0))
		if err != nil {
			return err
		}
		if c.name == "symlink" {
			return in.create(c, Symlink, atFDCWD, 1, string(target))
		}
		return in.create(c, Symlink, arg(c, 1), 2, string(target))
	case "unlink", "rmdir":
		return in.remove(c, atFDCWD, 0)
	case "unlinkat":
		return in.remove(c, arg(c, 0), 1)
	case "rename":
		return in.rename(c, atFDCWD, 0, atFDCWD, 1, "")
	case "renameat":
		return in.rename(c, arg(c, 0), 1, arg(c, 2), 3, "")
	case "renameat2":
		return in.rename(c, arg(c, 0), 1, arg(c, 2), 3, arg(c, 4))
	case "link":
		return in.link(c, atFDCWD, 0, atFDCWD, 1, false)
	case "linkat":
		return in.link(c, arg(c, 0), 1, arg(c, 2), 3, flagSet(arg(c, 4))["AT_SYMLINK_FOLLOW"])
	}
	return nil
}

// mark records a marker: an access() of a path under markPrefix.
func (in *interpreter) mark(c call) error {
	i := 0
	if c.name != "access" {
		i = 1
	}
	p, _, err := parseString(arg(c, i))
	if err != nil {
		return err
	}
	if step, id, ok := parseMark(string(p)); ok {
		in.emit(Op{Kind: Mark, Step: step, ID: id}, c.line)
	}
	return nil
}

// open interprets open, openat and creat.
func (in *interpreter) open(c call, dirfd, pathArg string, flags map[string]bool) error {
	abs, err := in.resolve(dirfd, pathArg)
	if err != nil {
		return err
	}
	f := &openFile{append: flags["O_APPEND"], synced: flags["O_SYNC"] || flags["O_DSYNC"]}
	rel, inside := in.rel(abs)
	if !inside {
		f.outside = abs
		in.fds[c.ret] = f
		return nil
	}
	if flags["O_TMPFILE"] {
		return errors.New("O_TMPFILE in the traced directory is not modelled")
	}
	ino, found, err := in.m.lookup(rel, !flags["O_NOFOLLOW"])
	if err != nil {
		return err
	}
	if !found {
		if !flags["O_CREAT"] {
			return fmt.Errorf("%s was opened, but the trace never created it", rel)
		}
		dir, name, err := in.m.lookupParent(rel)
		if err != nil {
			return err
		}
		if in.m.nodes[dir].entries[name] != 0 { // a dangling symlink: O_CREAT creates its target
			return fmt.Errorf("%s: creating a file through a symbolic link is not modelled", rel)
		}
		ino = in.m.newIno()
		in.emit(Op{Kind: Create, Path: rel, ino: ino, dir: dir, name: name}, c.line)
	} else if flags["O_TRUNC"] && in.m.nodes[ino].kind == fileNode && len(in.m.nodes[ino].data) > 0 {
		in.emit(Op{Kind: Truncate, Path: in.m.path(ino), Size: 0, ino: ino}, c.line)
	}
	f.ino = ino
	in.fds[c.ret] = f
	return nil
}

// openat2 interprets openat2, whose flags are in a struct.
func (in *interpreter) openat2(c call) error {
	how := arg(c, 2)
	flags := ""
	if i := strings.Index(how, "flags="); i >= 0 {
		flags = how[i+len("flags="):]
		if j := strings.IndexAny(flags, ",}"); j >= 0 {
			flags = flags[:j]
		}
	}
	return in.open(c, arg(c, 0), arg(c, 1), flagSet(flags))
}

// dup makes descriptor to refer to what from refers to.
func (in *interpreter) dup(from, to int64) {
	if f := in.fds[from]; f != nil {
		in.fds[to] = f
	} else {
		delete(in.fds, to)
	}
}

// fcntl interprets the fcntl commands that duplicate a descriptor or set
// O_APPEND.
func (in *interpreter) fcntl(c call) error {
	fd := fdArg(c, 0)
	switch cmd := arg(c, 1); cmd {
	case "F_DUPFD", "F_DUPFD_CLOEXEC":
		in.dup(fd, c.ret)
	case "F_SETFL":
		if f := in.fds[fd]; f != nil {
			f.append = flagSet(arg(c, 2))["O_APPEND"]
		}
	}
	return nil
}

// write interprets write, pwrite64, writev, pwritev and pwritev2.
func (in *interpreter) write(c call) error {
	f := in.fds[fdArg(c, 0)]
	if f == nil || f.ino == 0 || c.ret == 0 {
		return nil // not a file of the traced directory
	}
	var data []byte
	var err error
	if strings.HasSuffix(c.name, "v") || c.name == "pwritev2" {
		data, err = iovecs(arg(c, 1))
	} else {
		var truncated bool
		data, truncated, err = parseString(arg(c, 1))
		if truncated && int64(len(data)) < c.ret {
			return fmt.Errorf("strace cut the written buffer short at %d of %d bytes: record with a larger -s", len(data), c.ret)
		}
	}
	if err != nil {
		return err
	}
	if int64(len(data)) < c.ret {
		return fmt.Errorf("the trace shows %d of the %d bytes written", len(data), c.ret)
	}
	off, advance := f.pos, true
	synced := f.synced
	switch c.name {
	case "pwrite64", "pwritev", "pwritev2":
		if off, err = parseInt(arg(c, 3)); err != nil {
			return err
		}
		advance = off == -1 // pwritev2 at offset -1 writes at the file offset
		if advance {
			off = f.pos
		}
		if c.name == "pwritev2" {
			fl := flagSet(arg(c, 4))
			synced = synced || fl["RWF_SYNC"] || fl["RWF_DSYNC"]
		}
	}
	return in.writeAt(f, off, data[:c.ret], advance, synced, c.line)
}

// writeAt records a write of data into the file f at off (at the end, for
// an O_APPEND descriptor), advancing the file offset if advance.
func (in *interpreter) writeAt(f *openFile, off int64, data []byte, advance, synced bool, line int) error {
	n := in.m.nodes[f.ino]
	if n.kind != fileNode {
		return fmt.Errorf("a write to %s, which is not a regular file", in.m.path(f.ino))
	}
	if f.append {
		off = int64(len(n.data)) // Linux appends even for pwrite
	}
	in.emit(Op{Kind: Write, Path: in.m.path(f.ino), Off: off, Data: data, Synced: synced, ino: f.ino}, line)
	if advance {
		f.pos = off + int64(len(data))
	}
	return nil
}

// copyRange interprets copy_file_range and sendfile, which copy bytes from
// one descriptor to another in the kernel.
func (in *interpreter) copyRange(c call) error {
	var inFD, outFD int64
	var inOff, outOff string
	if c.name == "copy_file_range" { // (fd_in, off_in, fd_out, off_out, len, flags)
		inFD, inOff, outFD, outOff = fdArg(c, 0), arg(c, 1), fdArg(c, 2), arg(c, 3)
	} else { // sendfile(out_fd, in_fd, offset, count)
		outFD, inFD, inOff, outOff = fdArg(c, 0), fdArg(c, 1), arg(c, 2), "NULL"
	}
	dst := in.fds[outFD]
	if dst == nil || dst.ino == 0 || c.ret == 0 {
		return nil
	}
	src := in.fds[inFD]
	if src == nil || src.ino == 0 {
		return errors.New("bytes copied into the traced directory from a file outside it: the trace does not show them")
	}
	from, advanceSrc, err := offsetArg(inOff, src.pos)
	if err != nil {
		return err
	}
	sdata := in.m.nodes[src.ino].data
	if from+c.ret > int64(len(sdata)) {
		return fmt.Errorf("copied %d bytes from offset %d of a %d-byte file", c.ret, from, len(sdata))
	}
	data := append([]byte(nil), sdata[from:from+c.ret]...)
	if advanceSrc {
		src.pos = from + c.ret
	}
	to, advanceDst, err := offsetArg(outOff, dst.pos)
	if err != nil {
		return err
	}
	return in.writeAt(dst, to, data, advanceDst, dst.synced, c.line)
}

// offsetArg reads an offset pointer argument: NULL means the file offset
// (which the call then advances), "[N]" or "[N => M]" an explicit offset N.
func offsetArg(a string, pos int64) (off int64, advance bool, err error) {
	if a == "NULL" {
		return pos, true, nil
	}
	a = strings.TrimPrefix(a, "[")
	if i := strings.IndexAny(a, " ]"); i >= 0 {
		a = a[:i]
	}
	off, err = parseInt(a)
	return off, false, err
}

// truncatePath interprets truncate(path, length).
func (in *interpreter) truncatePath(c call) error {
	rel, inside, err := in.relArg(c, atFDCWD, 0)
	if err != nil || !inside {
		return err
	}
	ino, found, err := in.m.lookup(rel, true)
	if err != nil || !found {
		return fmt.Errorf("truncate of %s, which the trace never created (%v)", rel, err)
	}
	size, err := parseInt(arg(c, 1))
	if err != nil {
		return err
	}
	in.emit(Op{Kind: Truncate, Path: in.m.path(ino), Size: size, ino: ino}, c.line)
	return nil
}

// fallocate interprets fallocate(fd, mode, offset, len): mode 0 extends
// the file, FALLOC_FL_KEEP_SIZE only reserves space; other modes change
// data and are not modelled.
func (in *interpreter) fallocate(c call) error {
	f := in.fds[fdArg(c, 0)]
	if f == nil || f.ino == 0 {
		return nil
	}
	switch mode := arg(c, 1); mode {
	case "0":
		off, err1 := parseInt(arg(c, 2))
		n, err2 := parseInt(arg(c, 3))
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		if size := int64(len(in.m.nodes[f.ino].data)); off+n > size {
			in.emit(Op{Kind: Truncate, Path: in.m.path(f.ino), Size: off + n, ino: f.ino}, c.line)
		}
	case "FALLOC_FL_KEEP_SIZE":
	default:
		return fmt.Errorf("fallocate mode %s is not modelled", mode)
	}
	return nil
}

// create interprets mkdir, mkdirat, symlink and symlinkat: the path is
// argument i, relative to dirfd.
func (in *interpreter) create(c call, kind Kind, dirfd string, i int, target string) error {
	rel, inside, err := in.relArg(c, dirfd, i)
	if err != nil || !inside {
		return err
	}
	dir, name, err := in.m.lookupParent(rel)
	if err != nil {
		return err
	}
	in.emit(Op{Kind: kind, Path: rel, Target: target, ino: in.m.newIno(), dir: dir, name: name}, c.line)
	return nil
}

// remove interprets unlink, unlinkat and rmdir: the path is argument i.
func (in *interpreter) remove(c call, dirfd string, i int) error {
	rel, inside, err := in.relArg(c, dirfd, i)
	if err != nil || !inside {
		return err
	}
	dir, name, err := in.m.lookupParent(rel)
	if err != nil {
		return err
	}
	ino, ok := in.m.nodes[dir].entries[name]
	if !ok {
		return fmt.Errorf("removal of %s, which the trace never created", rel)
	}
	in.emit(Op{Kind: Remove, Path: rel, ino: ino, dir: dir, name: name}, c.line)
	return nil
}

// rename interprets rename, renameat and renameat2.
func (in *interpreter) rename(c call, olddirfd string, oldi int, newdirfd string, newi int, flags string) error {
	if flagSet(flags)["RENAME_EXCHANGE"] {
		return errors.New("RENAME_EXCHANGE is not modelled")
	}
	from, fromInside, err := in.relArg(c, olddirfd, oldi)
	if err != nil {
		return err
	}
	to, toInside, err := in.relArg(c, newdirfd, newi)
	if err != nil {
		return err
	}
	switch {
	case !fromInside && !toInside:
		return nil
	case !fromInside:
		return fmt.Errorf("a file moved into the traced directory (%s) from outside it: the trace does not show its contents", to)
	}
	dir, name, err := in.m.lookupParent(from)
	if err != nil {
		return err
	}
	ino, ok := in.m.nodes[dir].entries[name]
	if !ok {
		return fmt.Errorf("rename of %s, which the trace never created", from)
	}
	if !toInside { // it leaves the directory: for the model, a removal
		in.emit(Op{Kind: Remove, Path: from, ino: ino, dir: dir, name: name}, c.line)
		return nil
	}
	newDir, newName, err := in.m.lookupParent(to)
	if err != nil {
		return err
	}
	if cur, ok := in.m.nodes[newDir].entries[newName]; ok && cur == ino {
		return nil // both names are the same file: rename does nothing
	}
	in.emit(Op{Kind: Rename, Path: from, NewPath: to, ino: ino, dir: dir, name: name, newDir: newDir, newName: newName}, c.line)
	return nil
}

// link interprets link and linkat.
func (in *interpreter) link(c call, olddirfd string, oldi int, newdirfd string, newi int, follow bool) error {
	from, fromInside, err := in.relArg(c, olddirfd, oldi)
	if err != nil {
		return err
	}
	to, toInside, err := in.relArg(c, newdirfd, newi)
	if err != nil || !toInside {
		return err
	}
	if !fromInside {
		return fmt.Errorf("a link in the traced directory (%s) to a file outside it: the trace does not show its contents", to)
	}
	ino, found, err := in.m.lookup(from, follow)
	if err != nil || !found {
		return fmt.Errorf("link to %s, which the trace never created (%v)", from, err)
	}
	newDir, newName, err := in.m.lookupParent(to)
	if err != nil {
		return err
	}
	in.emit(Op{Kind: Link, Path: from, NewPath: to, ino: ino, newDir: newDir, newName: newName}, c.line)
	return nil
}

// relArg resolves the path argument i of c, relative to dirfd, and returns
// it relative to the traced directory, if it is inside.
func (in *interpreter) relArg(c call, dirfd string, i int) (rel string, inside bool, err error) {
	abs, err := in.pathArg(c, dirfd, i)
	if err != nil {
		return "", false, err
	}
	rel, inside = in.rel(abs)
	return rel, inside, nil
}

// pathArg resolves the path argument i of c, relative to dirfd, to an
// absolute path.
func (in *interpreter) pathArg(c call, dirfd string, i int) (string, error) {
	return in.resolve(dirfd, arg(c, i))
}

// resolve returns the absolute, clean path of the path argument p relative
// to the directory descriptor dirfd (as strace printed both).
func (in *interpreter) resolve(dirfd, p string) (string, error) {
	b, _, err := parseString(p)
	if err != nil {
		return "", err
	}
	name := string(b)
	if filepath.IsAbs(name) {
		return filepath.Clean(name), nil
	}
	base := in.cwd
	if dirfd != atFDCWD {
		fd, err := parseInt(dirfd)
		if err != nil {
			return "", fmt.Errorf("dirfd %s: %w", dirfd, err)
		}
		f := in.fds[fd]
		if f == nil {
			return "", fmt.Errorf("a path relative to descriptor %d, which the trace never opened", fd)
		}
		base = in.abs(f)
		if base == "" {
			return "", fmt.Errorf("a path relative to a directory that was removed")
		}
	}
	return filepath.Join(base, name), nil
}

// abs returns the absolute path of an open file ("" if it has no name).
func (in *interpreter) abs(f *openFile) string {
	if f.ino == 0 {
		return f.outside
	}
	p := in.m.path(f.ino)
	if p == "" {
		return ""
	}
	return filepath.Join(in.dir, filepath.FromSlash(p))
}

// rel returns abs relative to the traced directory, "/"-separated, and
// whether it is inside it.
func (in *interpreter) rel(abs string) (string, bool) {
	if abs == in.dir {
		return ".", true
	}
	rest, ok := strings.CutPrefix(abs, in.dir+string(filepath.Separator))
	return filepath.ToSlash(rest), ok
}

// arg returns argument i of c, or "" if it has fewer.
func arg(c call, i int) string {
	if i < len(c.args) {
		return c.args[i]
	}
	return ""
}

// fdArg returns argument i of c as a descriptor (-1 if it is not a number).
func fdArg(c call, i int) int64 {
	a := arg(c, i)
	if j := strings.IndexByte(a, '<'); j > 0 { // strace -y prints 3</path>
		a = a[:j]
	}
	fd, err := strconv.ParseInt(a, 0, 64)
	if err != nil {
		return -1
	}
	return fd
}

// iovecs concatenates the buffers of an iovec array argument:
// [{iov_base="…", iov_len=5}, …].
func iovecs(a string) ([]byte, error) {
	var out []byte
	for {
		i := strings.Index(a, "iov_base=")
		if i < 0 {
			return out, nil
		}
		a = a[i+len("iov_base="):]
		end, err := skipString(a, 0)
		if err != nil {
			return nil, err
		}
		b, truncated, err := parseString(a[:end])
		if err != nil {
			return nil, err
		}
		if truncated {
			return nil, errors.New("strace cut a written buffer short: record with a larger -s")
		}
		out = append(out, b...)
		a = a[end:]
	}
}
