package rendertest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/lint"
	pf "github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

// The platforms whose statement forms the table lists, with the renderer
// of each and the function that turns an artifact into its forms (each
// with the line it stands on, for CLI artifacts).
var platforms = []struct {
	id       string // the table's platform
	platform string // the devices rendered ("" = every switch)
	r        renderers.Renderer
	forms    func([]byte) ([]form, error)
	// releases are the NOS releases rendered besides the default, so that
	// every spelling a release takes is checked.
	releases []string
}{
	{"eos", ir.PlatformEOS, eos.Renderer{}, cliForms, nil},
	{"nxos", ir.PlatformNXOS, nxos.Renderer{}, cliForms, nil},
	{"nvue", ir.PlatformNVUE, nvue.Renderer{}, nvueForms, []string{"5.14"}},
	{"openconfig", "", openconfig.Renderer{}, jsonForms, nil},
}

// form is one statement form an artifact holds, and whether the artifact
// marks it as one no source confirms.
type form struct {
	form   string
	marked bool
}

// TestStatementsSourced renders the switches of every example and of the
// test fabric on every platform and fails when a statement form an
// artifact holds has no row in the statement table (compiler/platforms
// statements.json, docs/statements.md), the table that gives each form the
// public source showing the platform accepts it, and when a form the table
// marks verify is emitted without its mark. Of a large example, one switch
// per platform and role is rendered: the others of that kind hold the same
// forms.
func TestStatementsSourced(t *testing.T) {
	root := rendertest.RepoRoot(t)
	if err := pf.ValidateStatements(); err != nil {
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
			for _, rel := range append([]string{d.Release}, p.releases...) {
				dd := *d
				dd.Release = rel
				as, err := p.r.Render(&dd)
				if err != nil {
					t.Fatalf("%s: %s: %v", p.id, d.Name, err)
				}
				verify := map[string]bool{}
				for _, a := range as {
					forms, err := p.forms(a.Content)
					if err != nil {
						t.Fatalf("%s: %v", a.Path, err)
					}
					for _, f := range forms {
						if _, ok := emitted[f.form]; !ok {
							emitted[f.form] = d.Name
						}
						if pf.IsVerify(p.id, f.form) {
							verify[f.form] = true
							if !f.marked {
								t.Errorf("%s: %s emits `%s`, which the table marks verify, without its mark", p.id, a.Path, f.form)
							}
						}
					}
				}
				// RF117 counts, from the model alone, the verify forms each
				// platform's artifacts carry: it must name exactly these.
				if p.platform != "" && rel == d.Release {
					got := lint.VerifyForms([]*ir.Device{d})[p.id]
					if want := slices.Sorted(maps.Keys(verify)); !slices.Equal(got, want) {
						t.Errorf("%s: %s: RF117 counts verify forms %q, the artifact carries %q", p.id, d.Name, got, want)
					}
				}
			}
		}
		sourced := 0
		for _, f := range slices.Sorted(maps.Keys(emitted)) {
			row, ok := pf.LookupStatement(p.id, f)
			switch {
			case !ok:
				t.Errorf("%s: %s emits `%s`, which the statement table does not list", p.id, emitted[f], f)
			case row.Status == pf.Sourced:
				sourced++
			}
		}
		t.Logf("%s: %d statement forms emitted, %d sourced, %d verify", p.id, len(emitted), sourced, len(emitted)-sourced)
		if os.Getenv("ROCEFAB_FORMS") != "" {
			for _, f := range slices.Sorted(maps.Keys(emitted)) {
				t.Logf("%s\t%s", p.id, f)
			}
		}
	}
}

// cliForms turns a CLI configuration (EOS, NX-OS) into its statement
// forms, each with whether its verify mark is there.
func cliForms(b []byte) ([]form, error) {
	lines := strings.Split(string(b), "\n")
	var out []form
	for i, l := range lines {
		if f, ok := renderers.CLIForm(l); ok {
			out = append(out, form{f, renderers.VerifyMarked(lines, i, f)})
		}
	}
	return out, nil
}

// nvueForms turns an NVUE document into its forms: the key path of every
// leaf and empty mapping with its value. A form is marked when the line
// above its key is its "# verify:" comment.
func nvueForms(b []byte) ([]form, error) {
	var doc []map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	text := string(b)
	var out []form
	var walk func(path []string, v any)
	walk = func(path []string, v any) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for k, c := range m {
				walk(append(slices.Clone(path), k), c)
			}
			return
		}
		_, isMap := v.(map[string]any)
		f := renderers.NVUEForm(path, fmt.Sprint(v), isMap)
		out = append(out, form{f, strings.Contains(text, "# "+renderers.VerifyMark(f)+"\n")})
	}
	for _, item := range doc {
		for k, v := range item {
			walk([]string{k}, v)
		}
	}
	return out, nil
}

// jsonForms turns an RFC 7951 document into the schema paths of its leaves,
// list entries written as []. OpenConfig has no comments: every row of it is
// sourced by the YANG model.
func jsonForms(b []byte) ([]form, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []form
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
					out = append(out, form{form: path})
				}
			}
		default:
			out = append(out, form{form: path})
		}
	}
	walk("", doc)
	return out, nil
}
