package sonic_test

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

// statementRows reads the forms of docs/statements-sonic.md.
func statementRows(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(rendertest.RepoRoot(t), "docs", "statements-sonic.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]string{}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| (.+) \\| (sourced|verify) \\|$")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			rows[m[1]] = m[3]
		}
	}
	if len(rows) == 0 {
		t.Fatal("docs/statements-sonic.md has no rows")
	}
	return rows
}

var (
	portName = regexp.MustCompile(`^Ethernet[0-9]+$`)
	number   = regexp.MustCompile(`^[0-9]+(-[0-9]+)?$`)
)

// form is the statement form of one emitted field: TABLE|KEY field with
// ports, numbers and derived names replaced.
func form(table, key, field string) string {
	var parts []string
	for _, k := range strings.Split(key, "|") {
		switch {
		case portName.MatchString(k):
			parts = append(parts, "IF")
		case number.MatchString(k):
			parts = append(parts, "N")
		case k == "global" || k == "GLOBAL" || k == "AZURE":
			parts = append(parts, k)
		default:
			parts = append(parts, "NAME")
		}
	}
	switch {
	case portName.MatchString(field):
		field = "IF"
	case number.MatchString(field):
		field = "N"
	}
	return table + "|" + strings.Join(parts, "|") + " " + field
}

// sonicDevicesOfExamples compiles the examples and returns their SONiC
// switches, the first few of each example (every leaf of a tier renders
// the same forms).
// The examples are compiled once per test binary: hyperscale-100k takes
// seconds.
var (
	examplesOnce    sync.Once
	examplesDevices []*ir.Device
	examplesErr     error
)

func sonicDevicesOfExamples(t *testing.T) []*ir.Device {
	t.Helper()
	root := rendertest.RepoRoot(t)
	examplesOnce.Do(func() { examplesDevices, examplesErr = compileExamples(root) })
	if examplesErr != nil {
		t.Fatal(examplesErr)
	}
	return examplesDevices
}

func compileExamples(root string) ([]*ir.Device, error) {
	dirs, _ := filepath.Glob(filepath.Join(root, "examples", "*", "fabric.cue"))
	var out []*ir.Device
	for _, p := range dirs {
		in, ds, err := schema.Load(p)
		if err != nil || in == nil {
			return nil, fmt.Errorf("%s: %v %v", p, err, ds)
		}
		f, ds := compiler.Compile(in)
		if f == nil {
			return nil, fmt.Errorf("%s: %v", p, ds)
		}
		n := 0
		for _, d := range rendertest.Devices(f, ir.PlatformSONiC) {
			if n < 4 || d.Name == f.Devices[len(f.Devices)-1].Name {
				out = append(out, d)
			}
			n++
		}
	}
	return out, nil
}

// TestStatementsSonic renders every example's SONiC switches, the test
// fabric's SONiC leaf and its variants, and every catalog SONiC SKU at
// each split its cages take, and fails when a table and field the
// renderer emits has no row in docs/statements-sonic.md; it logs how many
// forms were emitted and how many are sourced.
func TestStatementsSonic(t *testing.T) {
	rows := statementRows(t)
	var devices []*ir.Device
	if !testing.Short() {
		devices = append(devices, sonicDevicesOfExamples(t)...)
	}
	devices = append(devices, rendertest.Devices(irtest.Fabric(), ir.PlatformSONiC)...)
	for _, m := range platforms.SONiCSKUModels() {
		sku, _ := platforms.LookupSONiCSKU(m)
		def, _ := sku.DefaultPorts()
		native := def[0].SpeedMbps / 1000
		for _, n := range []int{1, 2, 4, 8} {
			if _, err := sku.Layout(native/n, n); err == nil {
				devices = append(devices, skuDevice(t, sku, native/n, n))
			}
		}
	}
	emitted := map[string]bool{}
	for _, d := range devices {
		db, breakout := renderTables(t, d)
		for _, tables := range []map[string]map[string]map[string]string{db, breakout} {
			for table, keys := range tables {
				for key, fields := range keys {
					for field := range fields {
						emitted[form(table, key, field)] = true
					}
				}
			}
		}
	}
	sourced := 0
	for _, f := range slices.Sorted(maps.Keys(emitted)) {
		st, ok := rows[f]
		if !ok {
			t.Errorf("the renderer emits %s, which has no row in docs/statements-sonic.md", f)
			continue
		}
		if st == "sourced" {
			sourced++
		}
	}
	for f := range rows {
		table := strings.SplitN(f, "|", 2)[0]
		if _, ok := platforms.SONiCApply(table); !ok {
			t.Errorf("%s: table %s has no apply method in compiler/platforms/sonic_apply.json", f, table)
		}
	}
	t.Logf("SONiC: %d forms emitted over %d devices, %d sourced, %d rows", len(emitted), len(devices), sourced, len(rows))
}
