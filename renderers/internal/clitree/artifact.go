package clitree

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// Running returns the content of the running artifact named file, nil when
// the device has none (it runs nothing rocefab owns yet), and an error for
// two of them.
func Running(running []renderers.Artifact, file string) ([]byte, error) {
	at := -1
	for i, a := range running {
		if path.Base(a.Path) == file {
			if at >= 0 {
				return nil, fmt.Errorf("two running configurations, %s and %s", running[at].Path, a.Path)
			}
			at = i
		}
	}
	if at < 0 {
		return nil, nil
	}
	return running[at].Content, nil
}

// ApplyArtifacts applies rem, CLI lines in text format, to the running
// artifact named file, creating it (in the directory of the first
// artifact, the device's) when the device has none. The other artifacts
// are returned as they were.
func (d *Dialect) ApplyArtifacts(running []renderers.Artifact, rem renderers.Remediation, file string, s Scope) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	if len(rem.Content) == 0 {
		return out, nil
	}
	if rem.Format != renderers.Text {
		return nil, fmt.Errorf("a remediation in %q, not CLI lines in %q", rem.Format, renderers.Text)
	}
	at := -1
	for i, a := range running {
		if path.Base(a.Path) == file {
			if at >= 0 {
				return nil, fmt.Errorf("two running configurations, %s and %s", running[at].Path, a.Path)
			}
			at = i
		}
	}
	if at < 0 {
		if len(running) == 0 {
			return nil, fmt.Errorf("no running files to apply the lines to, and CLI lines name no device: create the device's directory first")
		}
		dev, _, _ := strings.Cut(running[0].Path, "/")
		out = append(out, renderers.Artifact{Path: dev + "/" + file, Format: renderers.Text})
		at = len(out) - 1
	}
	text, err := d.Apply(bytes.Clone(out[at].Content), rem.Content, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", out[at].Path, err)
	}
	out[at].Content = text
	return out, nil
}
