package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// onTerminal runs rocefab with stderr on a pseudo-terminal of 120x40 and
// returns what the terminal showed; it must exit 0.
func onTerminal(t *testing.T, args ...string) string {
	t.Helper()
	return onTerminalExit(t, 0, args...)
}

// onTerminalExit is onTerminal for a command that must exit with want.
func onTerminalExit(t *testing.T, want int, args ...string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Skipf("pseudo-terminal size: %v", err)
	}
	var seen bytes.Buffer
	read := make(chan struct{})
	go func() {
		io.Copy(&seen, ptmx)
		close(read)
	}()
	var stdout bytes.Buffer
	code := Run(args, &stdout, tty)
	tty.Close()
	<-read
	if code != want {
		t.Fatalf("rocefab %v: exit %d, want %d\n%s%s", args, code, want, stdout.String(), seen.String())
	}
	return seen.String()
}

// TestBuildProgressOnTerminal: on a terminal's stderr a build shows each
// step (loading, compiling, reading the earlier build, rendering with a
// count of devices, putting the build in place); with -q, or when stderr
// is no terminal, nothing of it.
func TestBuildProgressOnTerminal(t *testing.T) {
	// The multitenant example (its platforms, tenants and classes) cut to
	// 16 servers: the steps are those of any fabric, and the renderers run
	// at once as they do for 128 servers (the race detector's run).
	src := filepath.Join(t.TempDir(), "fabric.cue")
	cutIntent(t, filepath.Join(repoRoot(t), "examples", "multitenant", "fabric.cue"), src, map[string]string{
		"servers: 128":      "servers: 16",
		`"gpu-[0000-0095]"`: `"gpu-[0000-0011]"`,
		`"gpu-[0096-0127]"`: `"gpu-[0012-0015]"`,
	})
	devices := len(compileIntent(t, src).Devices)
	out := filepath.Join(t.TempDir(), "out")
	got := onTerminal(t, "build", src, "-o", out)
	says(t, "the terminal", got, "loading the intent ... ", "compiling ... ", "reading the earlier build in "+out+" ... ",
		"rendering ", fmt.Sprintf("/%d devices", devices), "100 %", "putting the build in place ... ")
	if got := onTerminal(t, "build", src, "-o", filepath.Join(t.TempDir(), "out"), "-q"); strings.Contains(got, "compiling") || strings.Contains(got, "rendering") {
		t.Errorf("build -q showed progress on the terminal:\n%s", got)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"build", src, "-o", filepath.Join(t.TempDir(), "out")}, &stdout, &stderr); code != 0 {
		t.Fatalf("build: exit %d\n%s", code, stderr.String())
	}
	if s := stdout.String() + stderr.String(); strings.Contains(s, "compiling") || strings.Contains(s, "rendering") {
		t.Errorf("build without a terminal showed progress:\n%s", s)
	}
}
