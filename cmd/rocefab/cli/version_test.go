package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestBuildVersion: a binary says which rocefab it is from its build
// information, not "devel" alone.
func TestBuildVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	rev := "b73fc0c5d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6"
	for _, c := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.4.0", nil, "v1.4.0"},
		{"(devel)", nil, "devel"},
		{"", nil, "devel"},
		{"(devel)", vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-12-01T14:54:26Z", "vcs.modified", "false"),
			"devel (commit b73fc0c5d1e2, 2026-12-01T14:54:26Z)"},
		{"(devel)", vcs("vcs.revision", rev, "vcs.time", "2026-12-01T14:54:26Z", "vcs.modified", "true"),
			"devel (commit b73fc0c5d1e2, 2026-12-01T14:54:26Z, modified)"},
		{"v0.0.0-20261201145426-b73fc0c5d1e2+dirty", vcs("vcs.revision", rev, "vcs.modified", "true"),
			"v0.0.0-20261201145426-b73fc0c5d1e2+dirty (modified)"},
		{"v0.0.0-20261201145426-b73fc0c5d1e2", vcs("vcs.revision", rev, "vcs.modified", "false"),
			"v0.0.0-20261201145426-b73fc0c5d1e2"},
		{"v1.4.0", vcs("vcs.revision", "abc"), "v1.4.0 (commit abc)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/rocefab/rocefab", Version: c.main}, Settings: c.settings}
		if got := buildVersion(bi, ""); got != c.want {
			t.Errorf("main %q, settings %v: %q, want %q", c.main, c.settings, got, c.want)
		}
	}
	// Without a module version or a commit, the build ID tells binaries
	// apart; with either, it is not needed.
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	id := "0e-sMjdSOuawNvUQYAwq/_XXOlfXyGKV7Epu47pal/DbWoZioLkK3JFaOJ8Wzp/ItsY9Cup9Nw8-WTj22iq"
	if got := buildVersion(bi, id); got != "devel (build 9d7b0a80eb83)" {
		t.Errorf("with build ID %s: %q", id, got)
	}
	bi.Main.Version = "v1.4.0"
	if got := buildVersion(bi, id); got != "v1.4.0" {
		t.Errorf("v1.4.0 with a build ID: %q", got)
	}
}

// TestVersionOfThisBinary: both ways of asking print the running binary's
// version, which for a binary without a module version or a commit names
// its Go build ID, as go tool buildid reads it.
func TestVersionOfThisBinary(t *testing.T) {
	want := version()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var stdout, stderr bytes.Buffer
		if code := Run(args, &stdout, &stderr); code != 0 || stdout.String() != versionLine(want) {
			t.Errorf("rocefab %v: exit %d, %q, want %q", args, code, stdout.String(), versionLine(want))
		}
	}
	if want == "devel" {
		t.Error(`version is "devel" alone`)
	}
	if !strings.HasPrefix(want, "devel (build ") {
		return // a module version or a commit names it
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH: cannot read the build ID to compare")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	out, err := exec.Command(goTool, "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	sum := sha256.Sum256(bytes.TrimSpace(out))
	if w := "devel (build " + hex.EncodeToString(sum[:6]) + ")"; want != w {
		t.Errorf("version %q, want %q from go tool buildid", want, w)
	}
}

// TestParseBuildIDNote reads the note in either byte order and refuses
// one of another shape.
func TestParseBuildIDNote(t *testing.T) {
	id := "abc/def"
	for _, order := range []interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}{binary.LittleEndian, binary.BigEndian} {
		note := order.AppendUint32(nil, 4)
		note = order.AppendUint32(note, uint32(len(id)))
		note = order.AppendUint32(note, 4)
		note = append(note, "Go\x00\x00"+id+"\x00"...)
		if got := parseBuildIDNote(note, order); got != id {
			t.Errorf("%v: %q, want %q", order, got, id)
		}
		bad := slices.Clone(note)
		bad[12] = 'X'
		if got := parseBuildIDNote(bad, order); got != "" {
			t.Errorf("%v: a note not named Go gave %q", order, got)
		}
		if got := parseBuildIDNote(note[:18], order); got != "" {
			t.Errorf("%v: a cut note gave %q", order, got)
		}
	}
}
