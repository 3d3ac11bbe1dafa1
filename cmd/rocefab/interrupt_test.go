package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/cmd/rocefab/cli"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// runMainEnv makes the test binary act as rocefab, so that a test can run
// a build in a process of its own and kill it.
const runMainEnv = "ROCEFAB_TEST_RUN_MAIN"

// intentOf is a fabric large enough (about 1,300 devices) that a build
// runs long enough to be stopped in the middle.
func intentOf(name string) string {
	return `name: "` + name + `"
topology: {
	servers: 1024
	rails:   8
	leaf: {platform: "eos", model: "7060X6-64PE", downlinks: 32, uplinks: 32}
	spine: {platform: "nvue", model: "SN5600"}
}
`
}

// stages lists the build directories being written beside out.
func stages(t *testing.T, out string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".rocefab-new-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStoppedBuildLeavesEarlierBuild kills a build, and interrupts
// another, while they write, and checks that the earlier build is exactly
// as it was and that the next build goes through.
func TestStoppedBuildLeavesEarlierBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,300-device fabric three times")
	}
	dir := t.TempDir()
	intent := filepath.Join(dir, "fabric.cue")
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(intent, []byte(intentOf("before")), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := cli.Run([]string{"build", intent, "-o", out, "-q"}, io.Discard, &stderr); code != 0 {
		t.Fatalf("first build: exit %d\n%s", code, stderr.String())
	}
	before := dirtest.Files(t, out, 0)
	// The intent changes, so the next build has to write.
	if err := os.WriteFile(intent, []byte(intentOf("after")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			// A killed build leaves its stage for the next build to sweep:
			// watch only the one this build makes.
			old := map[string]bool{}
			for _, st := range stages(t, out) {
				old[st] = true
			}
			cmd := exec.Command(os.Args[0], "build", intent, "-o", out, "-q")
			cmd.Env = append(os.Environ(), runMainEnv+"=1")
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the build has written part of its devices.
			deadline := time.Now().Add(60 * time.Second)
			for {
				seen := false
				for _, st := range stages(t, out) {
					if entries, _ := os.ReadDir(st); !old[st] && len(entries) > 50 {
						seen = true
					}
				}
				if seen {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no build in progress seen within 60 s; stderr:\n%s", errOut.String())
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("the build finished before it could be stopped (%v): make the fabric larger", err)
			}
			if sig == syscall.SIGINT {
				if ee.ExitCode() != 2 || !strings.Contains(errOut.String(), "interrupted") {
					t.Errorf("interrupted build: exit %d, stderr %q; want exit 2 saying interrupted", ee.ExitCode(), errOut.String())
				}
				if st := stages(t, out); len(st) != 0 {
					t.Errorf("an interrupted build left %v beside the output", st)
				}
			}
			if diff := cmp.Diff(before, dirtest.Files(t, out, 0)); diff != "" {
				t.Errorf("the stopped build changed the earlier build (-before +after):\n%.2000s", diff)
			}
		})
	}
	// The next build sweeps what the killed one left and puts its own in place.
	stderr.Reset()
	if code := cli.Run([]string{"build", intent, "-o", out, "-q"}, io.Discard, &stderr); code != 0 {
		t.Fatalf("build after the stopped ones: exit %d\n%s", code, stderr.String())
	}
	if st := stages(t, out); len(st) != 0 {
		t.Errorf("left beside the output: %v", st)
	}
	if !strings.Contains(dirtest.Files(t, out, 0)["SUMMARY.md"], "after") {
		t.Errorf("the build after the stopped ones did not replace the earlier build")
	}
}
