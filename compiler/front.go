package compiler

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/schema"
)

// Front is what every command starts from: an intent loaded and compiled,
// and the devices the command selected.
type Front struct {
	// Intent is nil when the intent could not be loaded; Diags say why.
	Intent *schema.Intent
	// Fabric is nil when the intent did not load or compile.
	Fabric *ir.Fabric
	// Devices are those FrontOptions.Only names (every device without
	// it); none when the fabric has errors.
	Devices []*ir.Device
	// Diags are the findings of loading and compiling.
	Diags diag.List
	// Parsed is false when the intent's files did not parse (a syntax
	// error, an import that cannot be resolved): nothing of the intent
	// was checked, and Diags say where.
	Parsed bool
}

// FrontOptions tune Load.
type FrontOptions struct {
	// Only selects the devices whose name matches the glob ("": all).
	Only string
	// Expand expands the fabric without the lint rules (Expand), for a
	// command that explains an intent with errors.
	Expand bool
	// Loaded, when not nil, is called with the intent once it is loaded
	// and before it compiles: build reads its earlier output meanwhile.
	Loaded func(*schema.Intent)
}

// Load loads the intent at path (schema.LoadParsed), compiles it (Compile,
// or Expand) and selects the devices opt.Only names. The error is an
// intent that could not be read at all (a path that is not there) or a
// selection that names no device; findings are in Front.Diags, and a
// fabric with errors has no devices selected.
func Load(p string, opt FrontOptions) (*Front, error) {
	in, ds, parsed, err := schema.LoadParsed(p)
	if err != nil {
		return nil, err
	}
	f := &Front{Intent: in, Diags: ds, Parsed: parsed}
	if in == nil || !parsed {
		return f, nil
	}
	if opt.Loaded != nil {
		opt.Loaded(in)
	}
	if opt.Expand {
		f.Fabric, f.Diags = Expand(in)
	} else {
		f.Fabric, f.Diags = Compile(in)
	}
	if f.Fabric == nil || (!opt.Expand && f.Diags.HasErrors()) {
		return f, nil
	}
	f.Devices, err = Select(f.Fabric, opt.Only)
	return f, err
}

// Select returns the devices the glob only names (all without it). A
// pattern that names none is an error with the closest names, since an
// empty selection is never what was meant.
func Select(fab *ir.Fabric, only string) ([]*ir.Device, error) {
	if only == "" {
		return fab.Devices, nil
	}
	var devs []*ir.Device
	for _, d := range fab.Devices {
		if ok, _ := path.Match(only, d.Name); ok {
			devs = append(devs, d)
		}
	}
	if len(devs) > 0 {
		return devs, nil
	}
	names := make([]string, len(fab.Devices))
	for i, d := range fab.Devices {
		names[i] = d.Name
	}
	return nil, fmt.Errorf("--only %s matches no device; closest: %s", diag.Quote(only), strings.Join(closest(only, names, 3), ", "))
}

// closest returns up to n of names nearest to what a user typed, by edit
// distance with the glob's wildcards left out, nearest first and ties in
// name order.
func closest(typed string, names []string, n int) []string {
	want := strings.NewReplacer("*", "", "?", "", "[", "", "]", "").Replace(typed)
	type scored struct {
		name string
		dist int
	}
	all := make([]scored, len(names))
	for i, name := range names {
		all[i] = scored{name, editDistance(want, name)}
	}
	slices.SortFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.name, b.name))
	})
	var out []string
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
