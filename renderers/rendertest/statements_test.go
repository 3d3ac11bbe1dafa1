package rendertest_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

// The platforms whose statement forms docs/statements.md lists, with the
// renderer of each and the function that turns an artifact into its forms.
var platforms = []struct {
	heading  string // the section of docs/statements.md
	platform string // the devices rendered ("" = every switch)
	r        renderers.Renderer
	forms    func([]byte) ([]string, error)
}{
	{"EOS", ir.PlatformEOS, eos.Renderer{}, cliForms},
	{"NX-OS", ir.PlatformNXOS, nxos.Renderer{}, cliForms},
	{"NVUE", ir.PlatformNVUE, nvue.Renderer{}, nvueForms},
	{"OpenConfig", "", openconfig.Renderer{}, jsonForms},
}

// TestStatementsSourced renders the switches of every example and of the
// test fabric on every platform and fails when a statement form an
// artifact holds has no row in docs/statements.md, the table that gives
// each form the public source showing the platform accepts it. Of a large
// example, one switch per platform and role is rendered: the others of
// that kind hold the same forms.
func TestStatementsSourced(t *testing.T) {
	root := rendertest.RepoRoot(t)
	table, err := readTable(filepath.Join(root, "docs", "statements.md"))
	if err != nil {
		t.Fatal(err)
	}
	devices := irtest.Fabric().Switches()
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*", "fabric.cue"))
	if len(examples) == 0 {
		t.Fatal("no examples")
	}
	for _, ex := range examples {
		in, ds, err := schema.Load(ex)
		if err != nil || in == nil {
			t.Fatalf("%s: %v %v", ex, err, ds)
		}
		f, ds := compiler.Compile(in)
		if f == nil || ds.HasErrors() {
			t.Fatalf("%s: %v", ex, ds)
		}
		seen := map[string]bool{}
		for _, d := range f.Switches() {
			kind := d.Platform + "/" + string(d.Role)
			if !seen[kind] {
				seen[kind] = true
				devices = append(devices, d)
			}
		}
	}
	for _, p := range platforms {
		emitted := map[string]string{} // form -> a device that emits it
		for _, d := range devices {
			if p.platform != "" && d.Platform != p.platform {
				continue
			}
			as, err := p.r.Render(d)
			if err != nil {
				t.Fatalf("%s: %s: %v", p.heading, d.Name, err)
			}
			for _, a := range as {
				forms, err := p.forms(a.Content)
				if err != nil {
					t.Fatalf("%s: %v", a.Path, err)
				}
				for _, f := range forms {
					if _, ok := emitted[f]; !ok {
						emitted[f] = d.Name
					}
				}
			}
		}
		rows := table[p.heading]
		sourced := 0
		for _, f := range slices.Sorted(maps.Keys(emitted)) {
			status, ok := rows[f]
			switch {
			case !ok:
				t.Errorf("%s: %s emits `%s`, which docs/statements.md does not list", p.heading, emitted[f], f)
			case status == "sourced":
				sourced++
			}
		}
		t.Logf("%s: %d statement forms emitted, %d sourced, %d verify", p.heading, len(emitted), sourced, len(emitted)-sourced)
		if os.Getenv("ROCEFAB_FORMS") != "" {
			for _, f := range slices.Sorted(maps.Keys(emitted)) {
				t.Logf("%s\t%s", p.heading, f)
			}
		}
	}
}

// readTable reads docs/statements.md: under each "## Platform" heading, the
// rows "| `form` | source | status |", status being sourced or verify.
func readTable(path string) (map[string]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if h, ok := strings.CutPrefix(l, "## "); ok {
			section = strings.TrimSpace(h)
			continue
		}
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), " | ")
		if len(cells) != 3 {
			return nil, fmt.Errorf("%s:%d: want | `form` | source | status |, got %q", path, n, l)
		}
		form := strings.Trim(strings.TrimSpace(cells[0]), "`")
		status := strings.TrimSpace(cells[2])
		if status != "sourced" && status != "verify" {
			return nil, fmt.Errorf("%s:%d: status %q, want sourced or verify", path, n, status)
		}
		if status == "sourced" && strings.TrimSpace(cells[1]) == "" {
			return nil, fmt.Errorf("%s:%d: sourced without a source", path, n)
		}
		if out[section] == nil {
			out[section] = map[string]string{}
		}
		if _, dup := out[section][form]; dup {
			return nil, fmt.Errorf("%s:%d: `%s` listed twice under %s", path, n, form, section)
		}
		out[section][form] = status
	}
	return out, sc.Err()
}

// Placeholders: what differs between two lines of one form.
var (
	ifRE      = regexp.MustCompile(`\bEthernet[0-9/]+`)
	classRE   = regexp.MustCompile(`\bROCEFAB-TC[0-9]+-\S+`)
	numRE     = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?\b`)
	numListRE = regexp.MustCompile(`N([ ,-]N)+`)
	ifListRE  = regexp.MustCompile(`IF(, IF)+`)
	// unitRE is a number glued to a unit or a lane count: 400g-4, 400G,
	// 2x, and the NX-OS system class names c-8q-nq3, c-out-8q-q3.
	unitRE  = regexp.MustCompile(`\b[0-9]+([gGx])(-[0-9]+)?\b`)
	nxqosRE = regexp.MustCompile(`\b(c-8q-nq|c-out-8q-q)[0-9]\b`)
)

// units replaces numbers glued to units and system class numbers.
func units(s string) string {
	s = nxqosRE.ReplaceAllString(s, "${1}N")
	return unitRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := unitRE.FindStringSubmatch(m)
		if sub[2] != "" {
			return "N" + sub[1] + "-N"
		}
		return "N" + sub[1]
	})
}

// cliForms turns a CLI configuration (EOS, NX-OS) into its statement
// forms: comment and blank lines dropped, names and numbers replaced.
func cliForms(b []byte) ([]string, error) {
	var out []string
	for l := range strings.Lines(string(b)) {
		l = strings.TrimSpace(l)
		if l == "" || l == "!" || strings.HasPrefix(l, "! ") {
			continue
		}
		if strings.HasPrefix(l, "description ") {
			l = "description TEXT"
		}
		l = ifRE.ReplaceAllString(l, "IF")
		l = classRE.ReplaceAllString(l, "CLASS")
		l = units(l)
		l = numRE.ReplaceAllString(l, "N")
		l = numListRE.ReplaceAllString(l, "N...")
		l = ifListRE.ReplaceAllString(l, "IF...")
		out = append(out, l)
	}
	return out, nil
}

// nvueForms turns an NVUE document into its forms: the key path of every
// leaf and empty mapping with its value, numbers, port names and PFC
// profile names replaced.
func nvueForms(b []byte) ([]string, error) {
	var doc []map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []string
	var walk func(path []string, v any)
	walk = func(path []string, v any) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for k, c := range m {
				walk(append(slices.Clone(path), nvueKey(path, k)), c)
			}
			return
		}
		val := "{}"
		if _, ok := v.(map[string]any); !ok {
			val = numRE.ReplaceAllString(units(fmt.Sprint(v)), "N")
		}
		switch path[len(path)-1] {
		case "description":
			val = "TEXT"
		case "profile":
			val = "PROFILE"
		}
		out = append(out, strings.Join(path, " ")+" "+val)
	}
	for _, item := range doc {
		for k, v := range item {
			walk([]string{k}, v)
		}
	}
	return out, nil
}

func nvueKey(path []string, k string) string {
	switch {
	case len(path) > 0 && path[len(path)-1] == "interface":
		return "IF"
	case len(path) > 0 && path[len(path)-1] == "pfc" && len(path) > 1 && path[len(path)-2] == "qos" && len(path) == 3:
		return "PROFILE"
	}
	return numRE.ReplaceAllString(units(k), "N")
}

// jsonForms turns an RFC 7951 document into the schema paths of its leaves,
// list entries written as [].
func jsonForms(b []byte) ([]string, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range v {
				if _, ok := c.(map[string]any); ok {
					walk(path+"[]", c)
				} else {
					out = append(out, path)
				}
			}
		default:
			out = append(out, path)
		}
	}
	walk("", doc)
	return out, nil
}
