package targets_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// sharedPlan is a plan of n leaves whose remediations, changes and
// desired states differ only in their names and neighbours, and one
// server unlike them.
func sharedPlan(n int) *targets.Plan {
	p := &targets.Plan{PlanHead: targets.PlanHead{FormatVersion: targets.PlanFormatVersion, Rocefab: "v1", Fabric: "f", Target: "directory running"}}
	for i := range n {
		name := fmt.Sprintf("leaf-%04d", i)
		var rem strings.Builder
		var changes []renderers.Change
		var desired []renderers.Element
		for port := range 64 {
			desc := fmt.Sprintf("gpu-%04d:eth%d", i*64+port, port%8)
			fmt.Fprintf(&rem, "interface Ethernet%d\n   description %s\n   mtu 9214\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"+
				"   qos trust dscp\n   tx-queue 3\n      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20\n", port, desc)
			changes = append(changes, renderers.Change{Path: fmt.Sprintf("interface Ethernet%d/description", port), After: new(desc), Kind: "description", Disruption: renderers.Hitless})
			desired = append(desired, renderers.Element{Path: fmt.Sprintf("interface Ethernet%d/description", port), Value: desc},
				renderers.Element{Path: fmt.Sprintf("interface Ethernet%d/mtu", port), Value: "9214", Kind: "mtu"})
		}
		fmt.Fprintf(&rem, "hostname %s\n", name)
		p.Devices = append(p.Devices, targets.DevicePlan{Device: name, Role: ir.RoleLeaf, Platform: "eos", Action: targets.Create,
			Disruption: renderers.Hitless, Changes: changes, Running: &targets.Digest{SHA256: "e3b0"}, Desired: desired,
			Remediation: &targets.Remediation{Format: renderers.Text, Content: []byte(rem.String())}})
	}
	p.Devices = append(p.Devices, targets.DevicePlan{Device: "server", Role: ir.RoleHost, Platform: "linux", Action: targets.Update,
		Disruption: renderers.PortFlap, Changes: []renderers.Change{{Path: "eth1/pfc", Before: new("0"), After: new("3"), Disruption: renderers.PortFlap}},
		Running: &targets.Digest{SHA256: "abcd"}, Remediation: &targets.Remediation{Format: renderers.JSON, Content: []byte(`{"pfc": 3}`)},
		Desired: []renderers.Element{{Path: "eth1/pfc", Value: "3", Kind: "pfc"}}})
	return p
}

// TestPlanFileShares: a plan file keeps the devices of one shape once,
// each device with its own values, reads back every device's changes,
// remediation and desired state exactly, and refuses a device whose
// shape or values were edited, naming it.
func TestPlanFileShares(t *testing.T) {
	p := sharedPlan(40)
	var buf bytes.Buffer
	if err := targets.WritePlan(&buf, p); err != nil {
		t.Fatal(err)
	}
	copied := 0
	for _, d := range p.Devices {
		es, err := json.Marshal(d.Desired)
		if err != nil {
			t.Fatal(err)
		}
		copied += len(d.Remediation.Content) + len(es)
	}
	// The remediations and desired states alone, copied, take 40 times
	// one leaf's; the file holds one leaf whole and each other's names.
	if buf.Len() > copied/4 {
		t.Errorf("the plan file takes %d bytes, the remediations and desired states it records %d: not shared", buf.Len(), copied)
	}
	if n := strings.Count(buf.String(), `"shape": "`); n != 2*len(p.Devices) {
		t.Errorf("%d references name their shape, want %d (a body and a desired state for each device)", n, 2*len(p.Devices))
	}
	if n := strings.Count(buf.String(), "priority-flow-control priority 3 no-drop"); n != 64 {
		t.Errorf("a leaf's line is in the file %d times, want 64 (one leaf's)", n)
	}
	if n := strings.Count(buf.String(), `"value": "9214"`); n != 64 {
		t.Errorf("a leaf's desired MTU is in the file %d times, want 64 (one leaf's)", n)
	}
	back, err := targets.ReadPlan(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// reflect, not cmp: cmp takes seconds over 40 leaves' changes.
	if !reflect.DeepEqual(p, back) {
		t.Errorf("round trip: the plan read back is not the plan written")
	}
	var again bytes.Buffer
	if err := targets.WritePlan(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("writing a plan read back gives other bytes")
	}

	// leaf-0001's first value: the first description's server number.
	v := firstValue(t, buf.String(), "leaf-0001", "body")
	i, tok, _ := strings.Cut(v, ":")
	dv := firstValue(t, buf.String(), "leaf-0001", "desired")
	di, _, _ := strings.Cut(dv, ":")
	bodyShape := refAt(t, buf.String(), "leaf-0000", "body", "shape")
	stateShape := refAt(t, buf.String(), "leaf-0000", "desired", "shape")
	for name, c := range map[string]struct{ edit, want, err string }{
		"a device's value":       {`"` + v + `"`, `"` + i + `:9999"`, "device leaf-0001: its shape and values give a changes and remediation of"},
		"a value's index":        {`"` + v + `"`, `"` + i + `1:` + tok + `"`, "device leaf-0001: "},
		"a value past the shape": {`"` + v + `"`, `"999999:` + tok + `"`, "device leaf-0001: value \"999999:" + tok + `"`},
		"the shape":              {`description gpu-0000:eth0`, `description gpu-0000:eth9`, "shape 1: its sha256 is"},
		"a device's digest":      {`"sha256": "` + refAt(t, buf.String(), "leaf-0002", "body", "sha256"), `"sha256": "00` + refAt(t, buf.String(), "leaf-0002", "body", "sha256")[2:], "device leaf-0002: its shape and values give"},
		"a desired value":        {`"` + dv + `"`, `"` + di + `:9999"`, "device leaf-0001: its shape and values give a desired state of"},
		"the desired shape":      {`"value": "9214"`, `"value": "1500"`, "desired shape 1: its sha256 is"},
		"a desired digest":       {`"sha256": "` + refAt(t, buf.String(), "leaf-0002", "desired", "sha256"), `"sha256": "00` + refAt(t, buf.String(), "leaf-0002", "desired", "sha256")[2:], "device leaf-0002: its shape and values give a desired state"},
		"a body for the desired": {`"desired": {` + "\n" + `        "shape": "` + stateShape, `"desired": {` + "\n" + `        "shape": "` + bodyShape, "device leaf-0000: desired state shape"},
	} {
		in := strings.Replace(buf.String(), c.edit, c.want, 1)
		if in == buf.String() {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		_, err := targets.ReadPlan(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: read with %v, want %q", name, err, c.err)
		}
	}
}

// firstValue returns the first of the values of device's reference ref
// ("body" or "desired") in the plan file.
func firstValue(t *testing.T, file, device, ref string) string {
	t.Helper()
	s := refAt(t, file, device, ref, "values")
	if s[0] != '[' {
		t.Fatalf("%s's %s has no values in the plan file", device, ref)
	}
	s = s[strings.IndexByte(s, '"')+1:]
	return s[:strings.IndexByte(s, '"')]
}

// refAt returns what follows key in device's reference ref ("body" or
// "desired") in the plan file: the string for a string, else the rest of
// the file from the value on.
func refAt(t *testing.T, file, device, ref, key string) string {
	t.Helper()
	at := strings.Index(file, `"device": "`+device+`"`)
	if at < 0 {
		t.Fatalf("no %s in the plan file", device)
	}
	rest := file[at:]
	r := strings.Index(rest, `"`+ref+`": {`)
	if r < 0 {
		t.Fatalf("%s has no %s", device, ref)
	}
	rest = rest[r:]
	rest = rest[:strings.Index(rest, "}")]
	i := strings.Index(rest, `"`+key+`": `)
	if i < 0 {
		t.Fatalf("%s's %s has no %s", device, ref, key)
	}
	s := rest[i+len(key)+4:]
	if s[0] != '"' {
		return s
	}
	return s[1 : 1+strings.IndexByte(s[1:], '"')]
}

// BenchmarkPlanFile writes and reads back the plan of 1,000 leaves.
func BenchmarkPlanFile(b *testing.B) {
	p := sharedPlan(1000)
	for b.Loop() {
		var buf bytes.Buffer
		if err := targets.WritePlan(&buf, p); err != nil {
			b.Fatal(err)
		}
		if _, err := targets.ReadPlan(&buf); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOutline: a device's outline is the same read from its shared body
// as counted from its own changes and remediation, a backslash before an
// n in the remediation included.
func TestOutline(t *testing.T) {
	p := sharedPlan(3)
	p.Devices[1].Remediation.Content = append(p.Devices[1].Remediation.Content, `printf 'a\nb'`+"\n"...)
	p.Devices[2].Remediation = &targets.Remediation{Format: "proto", Content: []byte{0xff, '\n', 0, '\n'}}
	k := targets.NewShapes()
	for _, d := range p.Devices {
		want := targets.Outline{Changes: len(d.Changes), RemediationLines: 1 + bytes.Count(d.Remediation.Content, []byte("\n"))}
		s, err := k.Share(d)
		if err != nil {
			t.Fatal(err)
		}
		own, err := d.Outline()
		if err != nil {
			t.Fatal(err)
		}
		shared, err := s.Outline()
		if err != nil {
			t.Fatal(err)
		}
		if own != shared || own.Changes != want.Changes || own.RemediationLines != want.RemediationLines {
			t.Errorf("%s: outline %+v, shared %+v, want %d changes, %d lines", d.Device, own, shared, want.Changes, want.RemediationLines)
		}
	}
	a, _ := p.Devices[0].Outline()
	b, _ := p.Devices[1].Outline()
	if a.ChangesDigest == b.ChangesDigest {
		t.Error("two devices with other changes have the same changes digest")
	}
}
