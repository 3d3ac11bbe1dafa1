//go:build race

package cli

// raceDetector says the tests run with the race detector, under which a
// sync.Pool drops a quarter of what is put back on purpose, so that what
// a build reuses cannot be measured.
const raceDetector = true
