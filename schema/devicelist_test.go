package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeList(t testing.TB, hosts int) string {
	var b strings.Builder
	b.WriteString("{\"devices\": [\n  {\"name\": \"leaf-00\", \"role\": \"leaf\", \"platform\": \"nvue\", \"model\": \"SN5600\", \"rail\": 0}")
	for i := range hosts {
		fmt.Fprintf(&b, ",\n  {\"name\": \"gpu-%05d\", \"role\": \"host\", \"platform\": \"linux\", \"model\": \"connectx-7\"}", i)
	}
	b.WriteString("\n],\n\"links\": [\n")
	for i := range hosts {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  {\"a\": \"gpu-%05d:eth1\", \"b\": \"leaf-00:swp%d\", \"speed\": \"400G\", \"cable\": \"3m\"}", i, i+1)
	}
	b.WriteString("\n]}\n")
	p := filepath.Join(t.TempDir(), "devices.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadDeviceListPositions(t *testing.T) {
	l, ds, err := ReadDeviceList(writeList(t, 3))
	if err != nil || len(ds) > 0 {
		t.Fatalf("ReadDeviceList: %v %v", err, ds)
	}
	if len(l.Devices) != 4 || len(l.Links) != 3 {
		t.Fatalf("%d devices, %d links", len(l.Devices), len(l.Links))
	}
	// Devices start on lines 2..5, links on 8..10, each at column 3.
	if p := l.Devices[2].Pos; p.Line != 4 || p.Column != 3 || p.Pointer != "/devices/2" {
		t.Errorf("device 2 at %+v", p)
	}
	if p := l.Links[1].Pos; p.Line != 9 || p.Column != 3 || p.Pointer != "/links/1" {
		t.Errorf("link 1 at %+v", p)
	}
	if l.Links[0].SpeedGbps != 400 || l.Links[0].CableM != 3 {
		t.Errorf("link 0 parsed as %+v", l.Links[0])
	}
}

func TestReadDeviceListErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`[]`, `want "{" here`},
		{`{"devices": [{"name": "a", "role": "leaf", "platform": "nvue", "model": "m", "colour": 1}]}`, `unknown field "colour"`},
		{`{"devices": [], "links": [{"a": "x", "b": "y:1", "speed": "300G", "cable": "3m"}]}`, `link end "x"`},
		{`{"devices": [{"name": "a;b", "role": "leaf", "platform": "nvue", "model": "m"}]}`, `device name "a;b"`},
		{`{"devices": [{"name": "h", "role": "host", "platform": "eos", "model": "m"}]}`, `hosts and only hosts run linux`},
		// A build writes the runtime every server shares to hosts/, and
		// other fabric-wide files beside it.
		{`{"devices": [{"name": "hosts", "role": "leaf", "platform": "eos", "model": "m"}]}`,
			`device name "hosts": a build writes the fabric's own hosts there; names reserved for the fabric are SUMMARY.md, inventory.json, hosts, tenants, slurm, k8s, monitoring, .rocefab-manifest.json`},
		{`{"devices": [{"name": "Hosts", "role": "host", "platform": "linux", "model": "m"}]}`, `device name "Hosts": a build writes`},
		{`{"devices": [{"name": "tenants", "role": "leaf", "platform": "eos", "model": "m"}]}`, `device name "tenants": a build writes`},
		{`{"hosts": []}`, `unknown field "hosts"`},
		{`{"devices": [], "links": []}`, `the device list has no devices`},
	} {
		p := filepath.Join(t.TempDir(), "devices.json")
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, ds, err := ReadDeviceList(p)
		found := false
		for _, d := range ds {
			found = found || strings.Contains(d.Message, c.want)
		}
		if err != nil || !found {
			t.Errorf("%s: %v %v, want a finding %q", c.src, err, ds, c.want)
		}
		for _, d := range ds {
			if d.Pos.File != p || d.Pos.Line == 0 {
				t.Errorf("%s: finding without a position: %v", c.src, d)
			}
		}
	}
}

// BenchmarkReadDeviceList shows reading grows linearly with the list.
func BenchmarkReadDeviceList(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		p := writeList(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, ds, err := ReadDeviceList(p); err != nil || len(ds) > 0 {
					b.Fatal(err, ds)
				}
			}
		})
	}
}
