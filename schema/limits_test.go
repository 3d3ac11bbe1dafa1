package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadTimed loads src as an intent and returns its findings, failing when
// loading takes longer than the two seconds a finding about a limit may
// take, however large the intent.
func loadTimed(t *testing.T, src string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fabric.cue")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	in, ds, err := Load(p)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("loading a %d-byte intent took %v: limits must answer before evaluation grows", len(src), d)
	}
	if err != nil {
		t.Fatal(err)
	}
	if in != nil {
		t.Fatalf("an intent above a limit loaded without findings")
	}
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d:%d: %s", d.Pos.Line, d.Pos.Column, d.Message))
	}
	return out
}

func head(fields string) string { return "name: \"x\"\ntopology: servers: 4\n" + fields }

func want(t *testing.T, got []string, prefix, text string) {
	t.Helper()
	for _, g := range got {
		if strings.HasPrefix(g, prefix) && strings.Contains(g, text) {
			return
		}
	}
	t.Errorf("no finding %q ... %q in\n%s", prefix, text, strings.Join(got, "\n"))
}

// 80,000 tenants took 36 s and a gigabyte to evaluate: the count stops
// them at the first tenant past the limit, one tenant a line (each a
// separate declaration, CUE's slowest form to merge) or in one struct.
func TestTenantLimit(t *testing.T) {
	var b strings.Builder
	for i := range 80_000 {
		fmt.Fprintf(&b, "tenants: \"t%d\": {class: \"roce\"}\n", i)
	}
	src := head(b.String())
	if len(src) <= MaxIntentBytes {
		t.Fatalf("the test wants an intent above MaxIntentBytes, got %d bytes", len(src))
	}
	want(t, loadTimed(t, src), "1:1: ", "larger than 2 MiB")

	b.Reset()
	for i := range MaxTenants + 10 {
		fmt.Fprintf(&b, "tenants: \"t%d\": {class: \"roce\"}\n", i)
	}
	want(t, loadTimed(t, head(b.String())), fmt.Sprintf("%d:10: ", 2+MaxTenants+1), "tenants: more than the 4,096 tenants")

	b.Reset()
	b.WriteString("tenants: {\n")
	for i := range 40_000 {
		fmt.Fprintf(&b, "\t\"t%d\": {class: \"roce\"}\n", i)
	}
	b.WriteString("}\n")
	src = head(b.String())
	if len(src) < 1<<20 {
		t.Fatalf("the test wants a multi-megabyte intent, got %d bytes", len(src))
	}
	want(t, loadTimed(t, src), fmt.Sprintf("%d:2: ", 3+MaxTenants+1), "tenants: more than the 4,096 tenants")
}

func TestOtherLimits(t *testing.T) {
	var b strings.Builder
	for i := range MaxClasses + 1 {
		fmt.Fprintf(&b, "classes: c%d: {priority: 0}\n", i)
	}
	want(t, loadTimed(t, head(b.String())), fmt.Sprintf("%d:10: ", 2+MaxClasses+1), "classes: more than the 64 classes")

	b.Reset()
	b.WriteString("hosts: nccl: env: {\n")
	for i := range MaxFields + 1 {
		fmt.Fprintf(&b, "\tNCCL_X%d: \"1\"\n", i)
	}
	b.WriteString("}\n")
	want(t, loadTimed(t, head(b.String())), fmt.Sprintf("%d:2: ", 3+MaxFields+1), "hosts.nccl.env: more than the 1,024 fields")

	dscp := strings.Repeat("1, ", MaxListElements+1)
	want(t, loadTimed(t, head("classes: c: {priority: 0, dscp: ["+dscp+"]}\n")), "3:33: ", "classes.c.dscp: a list of 1,025 elements")

	// Field declarations of distinct structs, each under its own limit.
	b.Reset()
	for i := range MaxDeclarations / 2 {
		fmt.Fprintf(&b, "tenants: \"t%d\": {class: \"roce\"}\n", i%MaxTenants)
	}
	for i := range 10 {
		fmt.Fprintf(&b, "tenants: \"t%d\": {servers: \"gpu-0000\"}\n", i)
	}
	want(t, loadTimed(t, head(b.String())), "", "more than 20,000 fields")
}

// A loop's fields cannot be counted without evaluating it, and nested
// loops multiply: three over 100 values make a million tenants.
func TestComprehensionRefused(t *testing.T) {
	src := head(`
_n: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
tenants: {
	for a in _n for b in _n for c in _n {
		"t\(a)\(b)\(c)": {class: "roce"}
	}
}
`)
	want(t, loadTimed(t, src), "6:2: ", "tenants: a for comprehension")
	// An if guard makes no more than it holds.
	p := filepath.Join(t.TempDir(), "fabric.cue")
	if err := os.WriteFile(p, []byte(head("_big: true\nif _big {tenants: t: {class: \"roce\"}}\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ds, err := Load(p); err != nil || len(ds) > 0 {
		t.Errorf("an if guard: %v %v", err, ds)
	}
}

func TestDeviceListLimits(t *testing.T) {
	p := writeList(t, 5) // 6 devices, 5 links
	if _, ds, err := readDeviceList(p, 6, 5); err != nil || len(ds) > 0 {
		t.Fatalf("at the limits: %v %v", err, ds)
	}
	_, ds, err := readDeviceList(p, 5, 5)
	if err != nil || len(ds) != 1 || !strings.Contains(ds[0].Message, "more than the 5 devices") || ds[0].Pos.Line != 7 || ds[0].Pos.Pointer != "/devices/5" {
		t.Errorf("6 devices, at most 5: %v %v", err, ds)
	}
	_, ds, err = readDeviceList(p, 6, 4)
	if err != nil || len(ds) != 1 || !strings.Contains(ds[0].Message, "more than the 4 links") || ds[0].Pos.Pointer != "/links/4" {
		t.Errorf("5 links, at most 4: %v %v", err, ds)
	}
}

func TestDeviceListWithoutDevices(t *testing.T) {
	p := filepath.Join(t.TempDir(), "devices.json")
	if err := os.WriteFile(p, []byte(`{"devices": [], "links": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ds, err := ReadDeviceList(p)
	if err != nil || !ds.HasErrors() || !strings.Contains(ds[0].Message, "has no devices") {
		t.Errorf("an empty device list: %v %v", err, ds)
	}
}
