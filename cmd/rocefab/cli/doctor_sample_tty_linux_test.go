package cli

import (
	"path/filepath"
	"testing"
)

// TestDoctorSampleProgressOnTerminal: on a terminal's stderr doctor
// --sample shows each round with a count of the devices it reads, and the
// wait between them.
func TestDoctorSampleProgressOnTerminal(t *testing.T) {
	dir, _, _ := gnmiCounterLab(t)
	got := onTerminalExit(t, exitDoctorError, "doctor", dir, "--sample", "300ms", "--inventory", filepath.Join(dir, "inventory.json"), "--insecure-plaintext")
	says(t, "the terminal", got, "sampling the counters (1 of 2) ", "/7 devices", "waiting 300ms between the samples ... ",
		"sampling the counters (2 of 2) ", "3/3 devices", "100 %")
}
