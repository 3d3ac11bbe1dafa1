package cli

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// version names the rocefab that runs, as its build information records
// it (runtime/debug.ReadBuildInfo): the module version ("v1.4.0", or the
// pseudo-version go install gives a commit), and, for a binary built from
// a checkout, the commit, its time and whether the tree had uncommitted
// changes ("devel (commit 0123456789ab, 2026-12-01T14:54:26Z, modified)").
// Plans and build manifests record it, so that apply refuses a plan that
// another build made.
//
// A binary built with neither (GOFLAGS=-buildvcs=false, a tree outside
// git) is "devel (build 0123456789ab)": the first 12 hex digits of the
// SHA-256 of the Go build ID the linker wrote into it, which differs
// between two binaries of different sources.
var version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return buildVersion(bi, goBuildID())
})

// buildVersion is version for the build information bi and the binary's
// Go build ID (or "").
func buildVersion(bi *debug.BuildInfo, buildID string) string {
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		if v == "devel" && buildID != "" {
			sum := sha256.Sum256([]byte(buildID))
			return v + " (build " + hex.EncodeToString(sum[:6]) + ")"
		}
		return v
	}
	// 12 hex digits, as many as Go's pseudo-versions give: a
	// pseudo-version names the commit and its time already.
	short := rev[:min(len(rev), 12)]
	var details []string
	if !strings.Contains(v, short) {
		details = append(details, "commit "+short)
		if at != "" {
			details = append(details, at)
		}
	}
	if modified {
		details = append(details, "modified")
	}
	if len(details) == 0 {
		return v
	}
	return v + " (" + strings.Join(details, ", ") + ")"
}

// goBuildID reads the Go build ID from the running executable's ELF note
// (what go tool buildid prints), or "" where there is none to read.
func goBuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil || sec.Size > 4096 {
		return ""
	}
	note, err := sec.Data()
	if err != nil {
		return ""
	}
	return parseBuildIDNote(note, f.ByteOrder)
}

// parseBuildIDNote returns the build ID an ELF note of the Go linker
// holds, in the file's byte order: name size, description size and type
// (4 bytes each), the name "Go" padded to 4 bytes, then the ID.
func parseBuildIDNote(note []byte, order binary.ByteOrder) string {
	if len(note) < 16 || order.Uint32(note[0:4]) != 4 || string(note[12:16]) != "Go\x00\x00" {
		return ""
	}
	size := order.Uint32(note[4:8])
	if size == 0 || uint64(size) > uint64(len(note)-16) {
		return ""
	}
	return string(note[16 : 16+size])
}

// versionLine is the one line both `rocefab version` and `rocefab
// --version` print.
func versionLine(v string) string { return "rocefab " + v + "\n" }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rocefab's version",
		Long: `Print rocefab's version: the module version it was built as (go install ...@v1.4.0), and for
a binary built from a git checkout the commit, its time and whether the tree was modified, as the
Go toolchain records them (go version -m shows them too).`,
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprint(cmd.OutOrStdout(), versionLine(version()))
		},
	}
}
