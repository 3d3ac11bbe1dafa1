// Package inventory writes inventory.json: the expanded fabric, its devices
// and links, in the device-list format the explicit topology style reads
// back (schema.DeviceList, `topology: {style: "explicit", inventory: ...}`).
//
// The format is the schema's; this package writes it from the IR alone, as
// every renderer does, and its tests read what it writes back through the
// schema's reader so that the two cannot drift apart.
package inventory

import (
	"strconv"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// File is the inventory's path in a build.
const File = "inventory.json"

// Renderer renders inventory.json.
type Renderer struct{}

var _ renderers.FabricRenderer = Renderer{}

// RenderFabric renders f's inventory.json.
func (Renderer) RenderFabric(f *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	b, err := Render(f)
	if err != nil {
		return nil, err
	}
	return []renderers.Artifact{{Path: File, Format: renderers.JSON, Content: b}}, nil
}

// Render returns f's device list. One element per line keeps the file
// diffable and fast to read back. Each line is what json.Marshal writes of
// a device or link (TestLinesAreMarshal), appended directly: a 100,000-GPU
// inventory has a million lines.
func Render(f *ir.Fabric) ([]byte, error) {
	b := make([]byte, 0, 96*(len(f.Devices)+len(f.Links)))
	b = append(b, "{\"devices\": [\n"...)
	for i, d := range f.Devices {
		b = appendDevice(append(b, "  "...), d)
		b = endLine(b, i == len(f.Devices)-1)
	}
	b = append(b, "],\n\"links\": [\n"...)
	for i, k := range f.Links {
		b = appendLink(append(b, "  "...), k)
		b = endLine(b, i == len(f.Links)-1)
	}
	return append(b, "]}\n"...), nil
}

// appendDevice appends d as json.Marshal writes its device.
func appendDevice(b []byte, d *ir.Device) []byte {
	b = renderers.AppendJSONString(append(b, `{"name":`...), d.Name, true)
	b = renderers.AppendJSONString(append(b, `,"role":`...), string(d.Role), true)
	b = renderers.AppendJSONString(append(b, `,"platform":`...), d.Platform, true)
	b = renderers.AppendJSONString(append(b, `,"model":`...), d.Model, true)
	if d.Rail >= 0 {
		b = strconv.AppendInt(append(b, `,"rail":`...), int64(d.Rail), 10)
	}
	if d.Pod >= 0 {
		b = strconv.AppendInt(append(b, `,"pod":`...), int64(d.Pod), 10)
	}
	return append(b, '}')
}

// appendLink appends k as json.Marshal writes its link.
func appendLink(b []byte, k *ir.Link) []byte {
	b = appendEndpoint(append(b, `{"a":`...), k.A)
	b = appendEndpoint(append(b, `,"b":`...), k.B)
	b = renderers.AppendJSONString(append(b, `,"speed":`...), speed(k.SpeedGbps), true)
	b = renderers.AppendJSONString(append(b, `,"cable":`...), length(k.CableM), true)
	return append(b, '}')
}

// appendEndpoint appends e as the JSON string "device:port" without
// joining the two: JSON escapes character by character, so the string's
// escaped form is the device's, a colon and the port's.
func appendEndpoint(b []byte, e ir.Endpoint) []byte {
	b = renderers.AppendJSONString(b, e.Device, true)
	b[len(b)-1] = ':'
	n := len(b)
	b = renderers.AppendJSONString(b, e.Port, true)
	copy(b[n:], b[n+1:])
	return b[:len(b)-1]
}

// endLine ends an element's line, with a comma unless it is the last.
func endLine(b []byte, last bool) []byte {
	if !last {
		b = append(b, ',')
	}
	return append(b, '\n')
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
