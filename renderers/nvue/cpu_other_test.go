//go:build !unix

package nvue_test

// cpuTime is unknown here: benchmarks report 0 CPU time.
func cpuTime() int64 { return 0 }
