package renderers

import (
	"bytes"
	"encoding/json"
	"errors"
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

// ScopeInput is how every platform's CheckScope begins: it refuses a nil
// device and a remediation in another format than want (form says what
// the platform's remediations are, for the error), and says whether rem
// holds anything to check; one of blanks only reaches nothing.
func ScopeInput(platform string, d *ir.Device, rem Remediation, want Format, form string) (bool, error) {
	if d == nil {
		return false, errors.New(platform + ": nil device")
	}
	if len(bytes.TrimSpace(rem.Content)) == 0 {
		return false, nil
	}
	if rem.Format != want {
		return false, fmt.Errorf("%s: %s: a remediation in %q, not %s in %q", platform, d.Name, rem.Format, form, want)
	}
	return true, nil
}

// OutsideScope is CheckScope's error for a part of a remediation, what,
// that reaches outside device d's owned scope.
func OutsideScope(platform string, d *ir.Device, what string) error {
	return fmt.Errorf("%s: %s: %s: outside the owned scope, which a remediation never leaves", platform, d.Name, what)
}

// DecodeRemediation decodes a remediation in JSON into v, refusing a
// field v does not have: a remediation names only what its platform
// writes, and a misspelt field must not be dropped silently.
func DecodeRemediation(content []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(content))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
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
