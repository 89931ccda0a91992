//go:build !unix

package verdict

import "os"

// Channel is de's end of the verdict channel, which needs Unix sockets:
// New fails here.
type Channel struct{}

// New fails with ErrUnsupported: there are no Unix sockets to pass to the
// go command here.
func New() (*Channel, error) { return nil, ErrUnsupported }

// File is never called here: New fails.
func (c *Channel) File() *os.File { return nil }

// Env is never called here: New fails.
func (c *Channel) Env() string { return "" }

// Listen is never called here: New fails.
func (c *Channel) Listen() {}

// Close is never called here: New fails.
func (c *Channel) Close() ([]Record, []error) { return nil, nil }

// isSocket is false here: no channel is ever given.
func isSocket(int) bool { return false }

func closeOnExec(int) {}

// Supported reports whether this system can give a test binary a verdict
// channel: it cannot, without Unix sockets.
func Supported() bool { return false }
