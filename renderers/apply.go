package renderers

import (
	"fmt"
	"path"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Applier applies a remediation to a running configuration the way the
// device itself would: a platform implements it next to Platform so that a
// target that keeps running configurations as files (the directory target)
// can be pushed to without knowing any platform's syntax.
//
// Apply returns the running artifacts after rem: the artifacts it was given,
// under the same paths, with the owned scope changed as rem says and every
// byte outside the owned scope as it was (foreign sections, comments,
// ordering), plus any artifact the remediation creates (named by
// NewArtifactPath). It never drops an
// artifact it was given and does not change running. Applying the
// remediation of Diff(Parse(running), desired) and parsing the result gives
// desired within the owned scope.
type Applier interface {
	Apply(running []Artifact, rem Remediation) ([]Artifact, error)
}

// ScopeChecker is a platform that checks a remediation against the scope
// rocefab owns on device d, by reading the remediation alone: every line,
// operation or setting must stay inside the owned scope. Apply runs it on
// every device before the first push, as a guard independent of how the
// remediation was made (a plan file read from disk, a bug in a diff), so
// that configuration rocefab does not own is never touched.
type ScopeChecker interface {
	CheckScope(d *ir.Device, rem Remediation) error
}

// NewArtifactPath is the path of a file an Applier creates for a device
// whose running artifacts are running: in the directory of the first of
// them (the device's), or, for a device that has no files yet, the file
// name alone, which the target places in the device's directory.
func NewArtifactPath(running []Artifact, file string) string {
	if len(running) == 0 {
		return file
	}
	dev, _, _ := strings.Cut(running[0].Path, "/")
	return dev + "/" + file
}

// RunningFile returns the index in running of the artifact named file (by
// its base name), -1 when there is none (the device runs nothing of that
// platform's yet), and an error naming both when there are two: a device
// runs one configuration file of each name, and which one to read or
// change would be a guess.
func RunningFile(running []Artifact, file string) (int, error) {
	at := -1
	for i, a := range running {
		if path.Base(a.Path) != file {
			continue
		}
		if at >= 0 {
			return -1, fmt.Errorf("two running configurations, %s and %s", running[at].Path, a.Path)
		}
		at = i
	}
	return at, nil
}
