package renderers

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Model writes a device's compiled model as <device>/model.json (build
// --emit model), with source positions relative to Dir, the intent's
// directory, so that the file is the same on every machine.
type Model struct{ Dir string }

var _ Renderer = Model{}

// Render returns the device's model as indented JSON.
func (m Model) Render(d *ir.Device) ([]Artifact, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	prefix, _ := json.Marshal(filepath.ToSlash(m.Dir) + "/")
	b = bytes.ReplaceAll(b, append([]byte(`"file": `), prefix[:len(prefix)-1]...), []byte(`"file": "`))
	return []Artifact{{Path: d.Name + "/model.json", Format: JSON, Content: append(b, '\n')}}, nil
}
