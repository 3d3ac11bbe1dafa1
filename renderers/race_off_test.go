//go:build !race

package renderers_test

// raceDetector says the tests run with the race detector (race_on_test.go).
const raceDetector = false
