//go:build unix

package stagebench

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used so far, user and
// system, on all its threads: the benchmark's own work and the garbage
// collection it causes, but not the time other processes held the CPU,
// which is most of the noise of a busy machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return wallTime()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
