//go:build !unix

package stagebench

import "time"

// cpuTime returns wall time where the system reports no CPU time to Go's
// syscall package: the ratios then carry the machine's noise.
func cpuTime() time.Duration { return wallTime() }
