// Package inventory writes inventory.json: the expanded fabric, its devices
// and links, in the device-list format the explicit topology style reads
// back (schema.DeviceList, `topology: {style: "explicit", inventory: ...}`).
//
// The format is the schema's; this package writes it from the IR alone, as
// every renderer does, and its tests read what it writes back through the
// schema's reader so that the two cannot drift apart.
package inventory

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// File is the inventory's path in a build.
const File = "inventory.json"

// Renderer renders inventory.json.
type Renderer struct{}

var _ renderers.FabricRenderer = Renderer{}

// device and link are one element of the device list, with the schema's
// field names (schema.ListedDevice, schema.ListedLink).
type device struct {
	Name     string `json:"name"`
	Role     string `json:"role"`
	Platform string `json:"platform"`
	Model    string `json:"model"`
	Rail     *int   `json:"rail,omitempty"`
	Pod      *int   `json:"pod,omitempty"`
}

type link struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Speed string `json:"speed"`
	Cable string `json:"cable"`
}

// RenderFabric renders f's inventory.json.
func (Renderer) RenderFabric(f *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	b, err := Render(f)
	if err != nil {
		return nil, err
	}
	return []renderers.Artifact{{Path: File, Format: renderers.JSON, Content: b}}, nil
}

// Render returns f's device list. One element per line keeps the file
// diffable and fast to read back.
func Render(f *ir.Fabric) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(96 * (len(f.Devices) + len(f.Links)))
	b.WriteString("{\"devices\": [\n")
	for i, d := range f.Devices {
		ld := device{Name: d.Name, Role: string(d.Role), Platform: d.Platform, Model: d.Model}
		if d.Rail >= 0 {
			ld.Rail = new(d.Rail)
		}
		if d.Pod >= 0 {
			ld.Pod = new(d.Pod)
		}
		if err := line(&b, ld, i == len(f.Devices)-1); err != nil {
			return nil, err
		}
	}
	b.WriteString("],\n\"links\": [\n")
	for i, k := range f.Links {
		lk := link{A: k.A.String(), B: k.B.String(), Speed: speed(k.SpeedGbps), Cable: length(k.CableM)}
		if err := line(&b, lk, i == len(f.Links)-1); err != nil {
			return nil, err
		}
	}
	b.WriteString("]}\n")
	return b.Bytes(), nil
}

// line writes one element, indented, with a comma unless it is the last.
func line(b *bytes.Buffer, v any, last bool) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.WriteString("  ")
	b.Write(j)
	if !last {
		b.WriteByte(',')
	}
	b.WriteByte('\n')
	return nil
}

// speed writes a link speed as the schema reads it (schema.ParseSpeed):
// "400G", and "1.6T" for 1,600 Gb/s.
func speed(gbps int) string {
	if gbps == 1600 {
		return "1.6T"
	}
	return strconv.Itoa(gbps) + "G"
}

// length writes a cable length in metres as the schema reads it
// (schema.ParseLength): "3m", "2.5m".
func length(m float64) string {
	return strconv.FormatFloat(m, 'f', -1, 64) + "m"
}
