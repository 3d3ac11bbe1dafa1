package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorSampleProgressOnTerminal: on a terminal's stderr doctor
// --sample shows each round with a count of the devices it reads, and the
// wait between them.
func TestDoctorSampleProgressOnTerminal(t *testing.T) {
	dir, _, _ := gnmiCounterLab(t)
	got := onTerminalExit(t, exitDoctorError, "doctor", dir, "--sample", "300ms", "--inventory", filepath.Join(dir, "inventory.json"), "--insecure-plaintext")
	for _, want := range []string{"sampling the counters (1 of 2) ", "/7 devices", "waiting 300ms between the samples ... ",
		"sampling the counters (2 of 2) ", "3/3 devices", "100 %"} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal did not show %q:\n%s", want, got)
		}
	}
}
