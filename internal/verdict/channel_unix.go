//go:build unix

package verdict

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Channel is de's end of the verdict channel of one go test run: make it
// with New, give File to the command as its first extra file (so that it
// is descriptor 3 there) with Env in its environment, call Listen once the
// command has started and Close once it has ended.
type Channel struct {
	mine, theirs *os.File

	mu      sync.Mutex
	records []Record
	bad     []string // datagrams that were not records
	done    chan struct{}
}

// New makes a channel. Both ends are close-on-exec in de, so that no other
// command de starts inherits them; exec.Cmd clears the flag on the copy
// the command gets as an extra file.
func New() (*Channel, error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("verdict channel: %w", err)
	}
	// de's end polls, so that Close can stop a read that waits.
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, fmt.Errorf("verdict channel: %w", err)
	}
	return &Channel{
		mine:   os.NewFile(uintptr(fds[0]), "verdict"),
		theirs: os.NewFile(uintptr(fds[1]), "verdict (the test binaries')"),
		done:   make(chan struct{}),
	}, nil
}

// File is the end the go command and its test binaries get, as their
// first extra file.
func (c *Channel) File() *os.File { return c.theirs }

// Env is the environment entry that names the channel: FLK_VERDICT_FD=3.
func (c *Channel) Env() string { return fmt.Sprintf("%s=%d", FDEnv, FD) }

// Listen starts collecting records. Call it once the command has started:
// it closes de's copy of the command's end, which the command holds now.
func (c *Channel) Listen() {
	c.theirs.Close()
	go c.read()
}

// read collects datagrams until Close sets a deadline, then takes what is
// left without waiting: every record a process that has exited sent is
// queued by then, as a Unix socket delivers a datagram as it is sent.
func (c *Channel) read() {
	defer close(c.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := c.mine.Read(buf)
		if errors.Is(err, io.EOF) {
			c.add(nil) // an empty datagram, which os.File reads as the end
			continue
		}
		if err != nil {
			break // Close's deadline
		}
		c.add(buf[:n])
	}
	if c.mine.SetReadDeadline(time.Time{}) != nil {
		return
	}
	rc, err := c.mine.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		for {
			n, err := syscall.Read(int(fd), buf)
			if err != nil {
				return true // EAGAIN: nothing left; never wait
			}
			c.add(buf[:n])
		}
	})
}

func (c *Channel) add(data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, err := Decode(data)
	if err != nil {
		c.bad = append(c.bad, err.Error())
		return
	}
	c.records = append(c.records, r)
}

// Close stops collecting and returns the records in the order they came,
// and an error for each datagram that was not a record (which only code
// that writes the descriptor itself can send). Call it once the command
// has exited: records sent later, by a process that outlived it, are not
// read.
func (c *Channel) Close() ([]Record, []error) {
	c.mine.SetReadDeadline(time.Now())
	<-c.done
	c.mine.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, b := range c.bad {
		errs = append(errs, errors.New(b))
	}
	return c.records, errs
}

// isSocket reports whether fd is an open socket.
func isSocket(fd int) bool {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFSOCK
}

func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

// Supported reports whether this system can give a test binary a verdict
// channel: it can, with Unix sockets.
func Supported() bool { return true }
