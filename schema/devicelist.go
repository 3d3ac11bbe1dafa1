package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
)

// DeviceList is the expanded fabric as a file: what `build` writes as
// inventory.json and what the explicit topology style reads back.
type DeviceList struct {
	Devices []ListedDevice `json:"devices"`
	Links   []ListedLink   `json:"links"`
}

// ListedDevice is one device of a DeviceList.
type ListedDevice struct {
	Name     string `json:"name"`
	Role     string `json:"role"`
	Platform string `json:"platform"`
	Model    string `json:"model"`
	Rail     *int   `json:"rail,omitempty"`
	Pod      *int   `json:"pod,omitempty"`

	Pos diag.Pos `json:"-"`
}

// ListedLink is one link of a DeviceList: each end is "device:interface".
type ListedLink struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Speed string `json:"speed"`
	Cable string `json:"cable"`

	Pos diag.Pos `json:"-"`
	// SpeedGbps and CableM are the parsed Speed and Cable.
	SpeedGbps int     `json:"-"`
	CableM    float64 `json:"-"`
}

// The roles and platforms a DeviceList may name.
var (
	listRoles     = []string{"host", "leaf", "spine", "superspine"}
	listPlatforms = []string{"eos", "nvue", "sonic", "nxos", "linux"}
)

// ReadDeviceList reads and checks a device list element by element with
// encoding/json (a CUE evaluation of 100,000 elements would take seconds),
// keeping each element's position (line, column and JSON pointer) for
// findings. An error means the file could not be read.
func ReadDeviceList(path string) (*DeviceList, diag.List, error) {
	return readDeviceList(path, MaxListedDevices, MaxListedLinks)
}

// readDeviceList is ReadDeviceList with its limits as parameters, so that
// a test can pass them without writing a file of 3,000,000 links.
func readDeviceList(path string, maxDevices, maxLinks int) (*DeviceList, diag.List, error) {
	b, err := readRegular(path, MaxDeviceListBytes)
	var big *tooLargeError
	if errors.As(err, &big) {
		return nil, diag.List{schemaDiag(diag.Pos{File: path, Line: 1, Column: 1},
			"the device list is larger than %s: rocefab reads at most %s devices and %s links",
			sizeStr(MaxDeviceListBytes), thousands(maxDevices), thousands(maxLinks))}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the explicit topology: %w", err)
	}
	l := &DeviceList{}
	var ds diag.List
	lc := &lineCounter{b: b, line: 1, col: 1}
	bad := func(off int64, ptr, format string, args ...any) {
		p := offsetPos(path, b, off)
		p.Pointer = ptr
		ds = append(ds, schemaDiag(p, format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	expect := func(want json.Delim) bool {
		off := dec.InputOffset()
		t, err := dec.Token()
		if err != nil || t != want {
			bad(off, "", "invalid device list: want %q here (the format build writes as inventory.json: {\"devices\": [...], \"links\": [...]})", want.String())
			return false
		}
		return true
	}
	if !expect('{') {
		return nil, ds, nil
	}
	devicesAt := int64(0)
	for dec.More() {
		off := dec.InputOffset()
		t, err := dec.Token()
		if err != nil {
			bad(off, "", "invalid JSON: %v", err)
			return nil, ds, nil
		}
		key, _ := t.(string)
		switch key {
		case "devices":
			devicesAt = off
			fallthrough
		case "links":
		default:
			bad(off, "/"+key, "unknown field %q: allowed are devices, links", key)
			return nil, ds, nil
		}
		if !expect('[') {
			return nil, ds, nil
		}
		limit := maxDevices
		if key == "links" {
			limit = maxLinks
		}
		for i := 0; dec.More(); i++ {
			off := skipSpace(b, dec.InputOffset())
			ptr := fmt.Sprintf("/%s/%d", key, i)
			if i == limit {
				bad(off, ptr, "more than the %s %s a device list may hold", thousands(limit), key)
				return nil, ds, nil
			}
			var err error
			if key == "devices" {
				var d ListedDevice
				if err = dec.Decode(&d); err == nil {
					d.Pos = lc.pos(path, off)
					d.Pos.Pointer = ptr
					l.Devices = append(l.Devices, d)
				}
			} else {
				var k ListedLink
				if err = dec.Decode(&k); err == nil {
					k.Pos = lc.pos(path, off)
					k.Pos.Pointer = ptr
					l.Links = append(l.Links, k)
				}
			}
			if err != nil {
				bad(off, ptr, "invalid %s element: %v", strings.TrimSuffix(key, "s"), err)
				return nil, ds, nil
			}
		}
		if !expect(']') {
			return nil, ds, nil
		}
	}
	if !expect('}') {
		return nil, ds, nil
	}
	if _, err := dec.Token(); err != io.EOF {
		bad(dec.InputOffset(), "", "invalid device list: data after the closing brace")
	}
	if len(l.Devices) == 0 {
		// Nothing to build: every artifact would be missing, and build
		// would write only the fabric-wide files.
		bad(skipSpace(b, devicesAt), "/devices", "the device list has no devices: list the fabric's switches and servers (the format build writes as inventory.json)")
	}
	ds = append(ds, l.check()...)
	return l, ds, nil
}

// lineCounter turns increasing byte offsets into positions in one pass
// over the file: counting from the start for every element would make
// reading a 300,000-link inventory quadratic.
type lineCounter struct {
	b         []byte
	off       int64
	line, col int
}

func (c *lineCounter) pos(path string, off int64) diag.Pos {
	off = min(off, int64(len(c.b)))
	if off < c.off {
		return offsetPos(path, c.b, off)
	}
	for ; c.off < off; c.off++ {
		if c.b[c.off] == '\n' {
			c.line, c.col = c.line+1, 1
		} else {
			c.col++
		}
	}
	return diag.Pos{File: path, Line: c.line, Column: c.col}
}

func skipSpace(b []byte, off int64) int64 {
	for off < int64(len(b)) && strings.IndexByte(" \t\r\n,", b[off]) >= 0 {
		off++
	}
	return off
}

// check validates each element on its own; links between elements are the
// compiler's to check.
func (l *DeviceList) check() diag.List {
	var ds diag.List
	one := func(p diag.Pos, format string, args ...any) { ds = append(ds, schemaDiag(p, format, args...)) }
	for _, d := range l.Devices {
		if !ValidName(d.Name) {
			one(d.Pos, "device name %q: names are %s", d.Name, NameForms)
		} else if Reserved(d.Name) {
			one(d.Pos, "device name %q: a build writes the fabric's own %s there; names reserved for the fabric are %s",
				d.Name, d.Name, strings.Join(ReservedNames, ", "))
		}
		if !contains(listRoles, d.Role) {
			one(d.Pos, "device %s: role %q: want one of %s", d.Name, d.Role, strings.Join(listRoles, ", "))
		}
		if !contains(listPlatforms, d.Platform) {
			one(d.Pos, "device %s: platform %q: want one of %s", d.Name, d.Platform, strings.Join(listPlatforms, ", "))
		}
		if (d.Role == "host") != (d.Platform == "linux") {
			one(d.Pos, "device %s: role %q with platform %q: hosts and only hosts run linux", d.Name, d.Role, d.Platform)
		}
		if d.Model == "" {
			one(d.Pos, "device %s: missing model", d.Name)
		}
		if d.Rail != nil && (*d.Rail < 0 || *d.Rail > 15) {
			one(d.Pos, "device %s: rail %d: want 0 to 15", d.Name, *d.Rail)
		}
	}
	for i := range l.Links {
		k := &l.Links[i]
		for _, end := range []string{k.A, k.B} {
			dev, port, ok := strings.Cut(end, ":")
			if !ok || !ValidName(dev) || !ValidInterface(port) {
				one(k.Pos, "link end %q: want device:interface, the device a name (%s), the interface %s",
					end, NameForms, InterfaceForms)
			}
		}
		var err error
		if k.SpeedGbps, err = ParseSpeed(k.Speed); err != nil {
			one(k.Pos, "link %s - %s: %v", k.A, k.B, err)
		}
		if k.CableM, err = ParseLength(k.Cable); err != nil {
			one(k.Pos, "link %s - %s: %v", k.A, k.B, err)
		}
	}
	return ds
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
