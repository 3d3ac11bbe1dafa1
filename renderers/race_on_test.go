//go:build race

package renderers_test

// raceDetector says the tests run with the race detector, under which a
// sync.Pool drops a quarter of what is put back on purpose, so that how
// many buffers are reused cannot be measured.
const raceDetector = true
