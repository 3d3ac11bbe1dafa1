package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// viewFiles are the CLI's files that may start goroutines: the view (a
// progress display redraws while the operation runs).
var viewFiles = map[string]bool{"progress.go": true}

// transports are the packages that reach devices; the CLI reaches them
// only through targets/routing.
var transports = []string{"targets/dir", "targets/gnmi", "targets/ssh", "targets/host"}

// transportNames are the inventory's transports (schema #Transport): a
// case on one of them is a transport switch, routing's job.
var transportNames = map[string]bool{"gnmi": true, "ssh": true, "dir": true, "netconf": true}

// TestCLIOnlySpeaks holds DESIGN.md's "the CLI is flags -> options -> one
// operation -> view -> exit code": outside the view, no file of the CLI
// starts a goroutine; none imports a transport or switches on a
// transport's name (routing chooses them); none calls a renderer, neither a function of a renderer package nor a
// Render method: build renders through renderers.RenderFabric, plan
// through the targets planner.
func TestCLIOnlySpeaks(t *testing.T) {
	const mod = "github.com/rocefab/rocefab/"
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		// The names under which the file imports renderer packages.
		renderPkgs := map[string]string{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ours := strings.CutPrefix(p, mod)
			if !ours {
				continue
			}
			for _, tr := range transports {
				if rel == tr {
					t.Errorf("%s: imports the transport %s: the CLI reaches devices through targets/routing", fset.Position(imp.Pos()), rel)
				}
			}
			if strings.HasPrefix(rel, "renderers") {
				local := filepath.Base(rel)
				if imp.Name != nil {
					local = imp.Name.Name
				}
				renderPkgs[local] = rel
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				if !viewFiles[name] {
					t.Errorf("%s: a go statement outside the view: the operation (targets, renderers, outdir) owns its concurrency", fset.Position(n.Pos()))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if v, _ := strconv.Unquote(lit.Value); transportNames[v] {
							t.Errorf("%s: a case on the transport %q: routing reaches devices, the CLI does not choose how", fset.Position(n.Pos()), v)
						}
					}
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					break
				}
				if id, ok := sel.X.(*ast.Ident); ok {
					if rel, ok := renderPkgs[id.Name]; ok {
						if rel == "renderers" && sel.Sel.Name == "RenderFabric" {
							break // the one render of a fabric, build's operation
						}
						if rel != "renderers" {
							t.Errorf("%s: calls %s.%s: the CLI names renderers in its registry and calls none", fset.Position(n.Pos()), rel, sel.Sel.Name)
						}
						break
					}
				}
				if strings.HasPrefix(sel.Sel.Name, "Render") {
					t.Errorf("%s: calls a renderer's %s: rendering is renderers.RenderFabric's, or the planner's", fset.Position(n.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no file of the CLI was checked")
	}
}
