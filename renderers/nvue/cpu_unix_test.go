//go:build unix

package nvue_test

import "syscall"

// cpuTime returns the process's user and system time in nanoseconds: a
// benchmark reports it per operation too, since on a machine other work
// shares the wall clock says little.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
