// Package verdict is the channel by which a suite's test binary tells de
// which of its tests passed, apart from anything the binary prints.
//
// go test reads a test binary's results from the binary's own output, and
// the learner's code runs inside that binary: what it prints, panics with,
// or writes to a file it opens by path (/dev/stdout, /proc/self/fd/1) lands
// in the same stream and can look like a result. So de gives the go
// command one more open file: one end of a Unix datagram socket pair, as
// file descriptor 3, named by $FLK_VERDICT_FD. The go command and every
// test binary it starts inherit it. A socket cannot be opened by path
// (/proc/self/fd/3 and /dev/fd/3 fail with ENXIO) nor connected to, so the
// only way to write to it is through the raw descriptor, which only the
// constructs the lab policy reviews give (syscall, os.NewFile, unsafe,
// //go:linkname, cgo, assembly): a lab that uses one earns nothing anyway.
//
// The suite's TestMain (internal/suite.Main) sends a Begin record, runs the
// tests, and then, when every test and cleanup has finished, one Test
// record for each top-level test with its verdict as the testing package
// holds it, and an End record with the exit code. internal/gotest credits
// a test only when its binary's records are whole (one Begin, Test records,
// one End, nothing after) and agree with how the binary exited.
package verdict

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// FDEnv names the environment variable that tells a test binary which of
// its file descriptors is the verdict channel. de sets it for the go
// command; Open reads it once and clears it, so that the processes a test
// starts (a child run of the same binary, a tracer) have no channel.
const FDEnv = "FLK_VERDICT_FD"

// FD is the descriptor the channel has in the go command and the test
// binaries: the first of exec.Cmd's ExtraFiles.
const FD = 3

// Kind says what a record reports.
type Kind string

// The records a test binary sends, in this order: one Begin, a Test record
// for each top-level test, one End.
const (
	Begin Kind = "begin"
	Test  Kind = "test"
	End   Kind = "end"
)

// The verdicts a Test record carries. Unsupported is a skip because this
// system cannot run the test (a torn write needs Linux's file size
// limit): a grade leaves it out here, rather than counting it lost.
const (
	Pass        = "pass"
	Fail        = "fail"
	Skip        = "skip"
	Unsupported = "unsupported"
)

// Record is one message on the channel: one datagram of JSON.
type Record struct {
	Kind Kind `json:"kind"`
	// Package is the import path of the suite that sent it.
	Package string `json:"pkg"`
	// PID is the sending process's: each run of a test binary is one
	// process, and its records are judged together.
	PID    int    `json:"pid"`
	Test   string `json:"test,omitempty"`   // Test: the top-level test's name
	Status string `json:"status,omitempty"` // Test: Pass, Fail, Skip or Unsupported
	Code   int    `json:"code"`             // End: the exit code the binary is about to exit with
	Tests  int    `json:"tests"`            // End: how many Test records came before it
}

// MaxRecord is the largest record a sender may send, in bytes: macOS
// limits a Unix datagram to 2048 bytes by default.
const MaxRecord = 2048

// Encode returns r as the one datagram that carries it.
func Encode(r Record) ([]byte, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxRecord {
		return nil, fmt.Errorf("verdict: a %s record of %d bytes is over the %d a datagram may carry", r.Kind, len(data), MaxRecord)
	}
	return data, nil
}

// Decode parses one datagram.
func Decode(data []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, fmt.Errorf("verdict: a datagram that is not a record: %w", err)
	}
	switch r.Kind {
	case Begin, Test, End:
	default:
		return Record{}, fmt.Errorf("verdict: a record of unknown kind %q", r.Kind)
	}
	return r, nil
}

// Sender is a test binary's end of the channel. A nil *Sender sends
// nothing: a suite run by plain go test has no channel.
type Sender struct {
	f   *os.File
	pid int
}

// Open returns the channel de gave this process, or nil when there is
// none: $FLK_VERDICT_FD unset, or not naming a socket. It clears the
// variable and marks the descriptor close-on-exec, so that no process a
// test starts inherits the channel or believes it has one.
func Open() *Sender {
	v, ok := os.LookupEnv(FDEnv)
	if !ok {
		return nil
	}
	os.Unsetenv(FDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 || !isSocket(fd) {
		return nil
	}
	closeOnExec(fd)
	return &Sender{f: os.NewFile(uintptr(fd), "verdict"), pid: os.Getpid()}
}

// Send sends r, with this process's PID. It does nothing on a nil Sender.
func (s *Sender) Send(r Record) error {
	if s == nil {
		return nil
	}
	r.PID = s.pid
	data, err := Encode(r)
	if err != nil {
		return err
	}
	if _, err := s.f.Write(data); err != nil {
		return fmt.Errorf("verdict: send a %s record: %w", r.Kind, err)
	}
	return nil
}

// ErrUnsupported is returned by New where there are no Unix sockets to
// pass to a child process (Windows): there, nothing a test binary reports
// can be told from what the learner's code prints.
var ErrUnsupported = errors.New("the verdict channel needs Unix sockets: grading runs on Linux or macOS")
