// Package renderers turns the compiled per-device model into configuration
// files: one package per platform below this one, each a pure function of
// the model, and the small interface they share.
//
// Renderers never read files, talk to devices or look at the intent: given
// the same *ir.Device they return the same bytes, which is what makes their
// output reviewable as golden files.
package renderers

import (
	"github.com/rocefab/rocefab/compiler/ir"
)

// Format says how an artifact is encoded, so that plan can pick a diff.
type Format string

// The artifact formats.
const (
	Text  Format = "text"  // a native CLI configuration
	JSON  Format = "json"  // JSON (OpenConfig RFC 7951, SONiC config_db)
	YAML  Format = "yaml"  // NVUE
	Shell Format = "shell" // a host script
	Env   Format = "env"   // KEY=value lines
	Unit  Format = "unit"  // a systemd unit
	// Prototext is a protocol buffer in its text format: the gNMI
	// SetRequest that remediates an OpenConfig device.
	Prototext Format = "prototext"
)

// Artifact is one rendered file.
type Artifact struct {
	// Path is relative to the output directory, with forward slashes:
	// "<device>/<file>" for device artifacts, "tenants/<name>.env" for
	// tenant ones.
	Path    string
	Format  Format
	Content []byte
	// pool is where Content's buffer goes back once written, nil for
	// bytes that are not a ContentPool's (ContentPool.Artifact).
	pool *ContentPool
}

// A Renderer turns one compiled device into the files that configure it.
// Render must be deterministic and must not keep or change d.
type Renderer interface {
	Render(d *ir.Device) ([]Artifact, error)
}

// A ModelRenderer is a Renderer that is also its device's Platform and
// builds one model for both: its artifacts are printed from the model and
// its desired state is the model's owned part. RenderFabric, asked for
// both, builds the model once through it, where Render and Desired would
// each build it.
type ModelRenderer interface {
	Renderer
	Platform
	RenderDesired(d *ir.Device) ([]Artifact, State, error)
}

// A Namer is a Renderer that can name the artifacts it would render for a
// device, and refuse the devices it would refuse, at a fraction of the
// cost of rendering them: an index of a build (SUMMARY.md) lists the files
// of devices a partial build does not render.
type Namer interface {
	Names(d *ir.Device) ([]string, error)
}
