package renderers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readers are, per platform package, the function that reads the text of
// a running configuration (what its Parse reads a device's file with).
// EOS and NX-OS have theirs from clitree.Methods, which their renderers
// embed.
var readers = map[string]fn{
	"renderers/internal/clitree": {"renderers/internal/clitree", "parse"},
	"renderers/openconfig":       {"renderers/openconfig", "read"},
	"renderers/sonic":            {"renderers/sonic", "parse"},
	"renderers/nvue":             {"renderers/nvue", "readTop"},
	"renderers/host":             {"renderers/host", "decodeState"},
}

// module is the import path of the module's root.
const module = "github.com/rocefab/rocefab"

// TestDesiredIsNotReadFromText checks, from the sources, that no package
// under renderers reaches a running-configuration parser from what builds
// a desired state or an artifact (Desired, State, Model and model, Render,
// RenderDesired, RenderFabric): the desired state is the renderer's model,
// and text is printed from it, never read back. A parser is a platform's
// reader of running-configuration text (readers) and every package's
// Parse; reaching one is found by following calls by name within a
// package and into the renderers packages it imports, which errs towards
// finding a call that is not made. Test files and the test kits are not
// production code and may parse what they render.
func TestDesiredIsNotReadFromText(t *testing.T) {
	pkgs := loadSources(t)
	parsers := map[fn]bool{}
	for _, r := range readers {
		parsers[r] = true
	}
	for key, p := range pkgs {
		if p.funcs["Parse"] != nil {
			parsers[fn{key, "Parse"}] = true
		}
	}
	// The readers must be where the table says: each platform's reader of
	// a running configuration reaches its reader of text, so that the
	// calls are followed and a renamed reader fails here.
	for key, r := range readers {
		if path := reach(pkgs, fn{key, "Parse"}, map[fn]bool{r: true}, map[fn]bool{}); len(path) < 2 {
			t.Fatalf("%s.Parse does not reach %s.%s: the reader was renamed (update readers) or the calls are not followed", key, r.pkg, r.name)
		}
	}
	// model is the builder EOS and NX-OS hand clitree.Methods, whose
	// Model the calls by name do not follow back into the platform.
	roots := []string{"Desired", "State", "Model", "model", "Render", "RenderDesired", "RenderFabric"}
	for _, key := range slices.Sorted(maps.Keys(pkgs)) {
		for _, r := range roots {
			root := fn{key, r}
			if pkgs[key].funcs[r] == nil {
				continue
			}
			if path := reach(pkgs, root, parsers, map[fn]bool{}); path != nil {
				t.Errorf("%s: %s reaches a running-configuration parser: %s", key, r, pathString(path))
			}
		}
	}
}

// fn names a function or method (by its name alone) of a package, keyed
// by its directory below the module.
type fn struct{ pkg, name string }

// source is one package's functions and, per function, the functions it
// may call: (package, name) pairs.
type source struct {
	funcs map[string][]fn
}

// loadSources parses every non-test Go file under renderers, but for the
// test kits and the generated ygot structs.
func loadSources(t *testing.T) map[string]*source {
	t.Helper()
	pkgs := map[string]*source{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			switch e.Name() {
			case "testdata", "rendertest", "clitreetest", "oc":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		key := path.Join("renderers", filepath.ToSlash(filepath.Dir(p)))
		if pkgs[key] == nil {
			pkgs[key] = &source{funcs: map[string][]fn{}}
		}
		addFile(pkgs[key], key, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 5 || pkgs["renderers/internal/clitree"] == nil || pkgs["renderers/eos"] == nil {
		t.Fatalf("read %d packages under renderers: the walk missed them", len(pkgs))
	}
	return pkgs
}

// addFile records f's functions and their calls. A call of a package
// function of another renderers package is that package's; a method
// call, or a function value's, may be any function of that name in the
// package or in the renderers packages the file imports.
func addFile(p *source, key string, f *ast.File) {
	imports := map[string]string{} // local name -> package key under the module
	var local []string
	for _, im := range f.Imports {
		ip, _ := strconv.Unquote(im.Path.Value)
		rel, ok := strings.CutPrefix(ip, module+"/")
		if !ok || !strings.HasPrefix(rel, "renderers") {
			if im.Name != nil {
				imports[im.Name.Name] = ""
			} else {
				imports[path.Base(ip)] = ""
			}
			continue
		}
		name := path.Base(rel)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = rel
		local = append(local, rel)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		calls := p.funcs[name]
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				calls = append(calls, fn{key, x.Name})
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					if rel, isPkg := imports[id.Name]; isPkg {
						if rel != "" {
							calls = append(calls, fn{rel, x.Sel.Name})
						}
						return false
					}
				}
				calls = append(calls, fn{key, x.Sel.Name})
				for _, rel := range local {
					calls = append(calls, fn{rel, x.Sel.Name})
				}
			}
			return true
		})
		p.funcs[name] = calls
	}
}

// reach returns a call path from f to a parser, nil for none.
func reach(pkgs map[string]*source, f fn, parsers, seen map[fn]bool) []fn {
	if parsers[f] {
		return []fn{f}
	}
	if seen[f] {
		return nil
	}
	seen[f] = true
	p := pkgs[f.pkg]
	if p == nil {
		return nil
	}
	for _, c := range p.funcs[f.name] {
		if c == f {
			continue
		}
		if _, ok := pkgs[c.pkg]; !ok || pkgs[c.pkg].funcs[c.name] == nil && !parsers[c] {
			continue
		}
		if path := reach(pkgs, c, parsers, seen); path != nil {
			return append([]fn{f}, path...)
		}
	}
	return nil
}

func pathString(path []fn) string {
	s := make([]string, len(path))
	for i, f := range path {
		s[i] = f.pkg + "." + f.name
	}
	return strings.Join(s, " -> ")
}
