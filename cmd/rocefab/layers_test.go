package main

import (
	"bufio"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layer is one row of DESIGN.md's layout table: the packages it holds and
// the rows it may import.
type layer struct {
	// row and cell are the row's first and last cells in DESIGN.md,
	// verbatim: the test fails when DESIGN.md and this table part.
	row, cell string
	// pkgs are the row's packages (path.Match patterns, module-relative).
	pkgs []string
	// may are the rows whose packages the row's may import, and through
	// them what those may ("Imports run downward only"). The CLI's row
	// may import everything below it, test kits anything but the CLI.
	may []string
}

// layers is DESIGN.md's layout table. A package in no row, or in the row
// of a name DESIGN.md gives in passing (the fabric-wide renderers beside
// the platform renderers, placement beside topology), fails the test.
var layers = map[string]layer{
	"main": {row: "`cmd/rocefab`", cell: "cli", pkgs: []string{"cmd/rocefab"}, may: []string{"cli"}},
	// outdir is a file of the CLI's build command made a package, beside
	// main.
	"cli":       {row: "`cmd/rocefab/cli` (or files beside main)", cell: "everything below", pkgs: []string{"cmd/rocefab/cli", "cmd/rocefab/outdir"}},
	"schema":    {row: "`schema`", cell: "diag", pkgs: []string{"schema"}, may: []string{"diag"}},
	"diag":      {row: "`compiler/diag`", cell: "nothing of ours", pkgs: []string{"compiler/diag"}},
	"ir":        {row: "`compiler/ir`", cell: "diag", pkgs: []string{"compiler/ir"}, may: []string{"diag"}},
	"topology":  {row: "`compiler/topology`", cell: "ir", pkgs: []string{"compiler/topology", "compiler/placement"}, may: []string{"ir"}},
	"physics":   {row: "`compiler/physics`", cell: "—", pkgs: []string{"compiler/physics"}},
	"platforms": {row: "`compiler/platforms`", cell: "—", pkgs: []string{"compiler/platforms"}},
	"lint":      {row: "`compiler/lint`", cell: "ir, diag, physics, platforms", pkgs: []string{"compiler/lint"}, may: []string{"ir", "diag", "physics", "platforms"}},
	"compiler": {row: "`compiler`", cell: "the above", pkgs: []string{"compiler"},
		may: []string{"schema", "diag", "ir", "topology", "physics", "platforms", "lint"}},
	"renderers": {row: "`renderers`", cell: "ir", pkgs: []string{"renderers"}, may: []string{"ir"}},
	"platform renderers": {row: "`renderers/{openconfig,eos,nvue,sonic,nxos,host}`", cell: "ir, renderers",
		pkgs: []string{"renderers/openconfig", "renderers/eos", "renderers/nvue", "renderers/sonic", "renderers/nxos", "renderers/host",
			// The fabric-wide files of a build (DESIGN.md: "one function
			// that renders a whole fabric (devices and fabric-wide files)").
			"renderers/scheduler", "renderers/monitoring", "renderers/summary", "renderers/inventory"},
		may: []string{"ir", "renderers"}},
	"oc":         {row: "`renderers/openconfig/oc`", cell: "ygot", pkgs: []string{"renderers/openconfig/oc"}},
	"targets":    {row: "`targets`", cell: "renderers, ir", pkgs: []string{"targets"}, may: []string{"renderers", "ir"}},
	"transports": {row: "`targets/{dir,gnmi,ssh,host}`", cell: "targets", pkgs: []string{"targets/dir", "targets/gnmi", "targets/ssh", "targets/host"}, may: []string{"targets"}},
	"routing":    {row: "routing (under `targets`)", cell: "targets, transports", pkgs: []string{"targets/routing"}, may: []string{"targets", "transports"}},
	"doctor": {row: "telemetry and doctor", cell: "below the CLI; analysis imports ir, not transports", pkgs: []string{"targets/telemetry", "targets/doctor"},
		// Doctor reads telemetry's counters: one row, two packages.
		may: []string{"doctor", "schema", "compiler", "topology", "renderers", "platform renderers", "targets"}},
	"test kits": {row: "test kits", cell: "anything"},
}

// debts are the arrows the code has and DESIGN.md's table does not allow,
// each with what removes it. The test fails on an arrow in neither the
// table nor this list, and on a debt the code no longer has: the list
// only shrinks.
var debts = map[string]string{}

// TestImportLayers keeps the import direction of DESIGN.md: each package
// imports only the rows its row may import, and the rows below those;
// siblings (one renderer, another) never import each other; test kits are
// imported by tests only. A package under X/internal/ is of X's row and
// may import X.
func TestImportLayers(t *testing.T) {
	const mod = "github.com/rocefab/rocefab/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../../...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	used := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		from, ok := rowOf(pkg)
		if !ok {
			t.Errorf("package %s has no row in DESIGN.md's layout table: add it there and here", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, mod)
			if !ours {
				continue
			}
			if from != "test kits" && isTestKit(dep) {
				t.Errorf("%s imports the test kit %s outside its tests: kits are for tests only", pkg, dep)
				continue
			}
			if parent, ok := internalTo(dep); ok && (pkg == parent || strings.HasPrefix(pkg, parent+"/")) {
				continue // a package's own helpers
			}
			if parent, ok := internalTo(pkg); ok && dep == parent {
				continue // a helper of its parent
			}
			to, _ := rowOf(dep)
			if allowed(from, to) {
				continue
			}
			if strings.HasPrefix(dep, pkg+"/") && len(layers[to].may) == 0 && to != "cli" && to != "test kits" {
				continue // its own generated code, which imports nothing of ours (openconfig/oc)
			}
			arrow := pkg + " -> " + dep
			if _, ok := debts[arrow]; ok {
				used[arrow] = true
				continue
			}
			t.Errorf("%s imports %s: the %s row (%s) may not import the %s row (DESIGN.md)", pkg, dep, layers[from].row, layers[from].cell, layers[to].row)
		}
	}
	for arrow, why := range debts {
		if why != "" && !used[arrow] {
			t.Errorf("%s is listed as a debt (%s) and the code no longer has it: remove it from the list", arrow, why)
		}
	}
}

// TestLayersAreDesign: the table above is DESIGN.md's, row for row: the
// same rows with the same "may import" cells.
func TestLayersAreDesign(t *testing.T) {
	p := filepath.Join("..", "..", "..", "shared", "DESIGN.md")
	f, err := os.Open(p)
	if err != nil {
		t.Skipf("DESIGN.md is beside the repository, not in it: %v", err)
	}
	defer f.Close()
	var design []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "| package | owns | may import |"):
			in = true
		case in && strings.HasPrefix(l, "|---"):
		case in && strings.HasPrefix(l, "|"):
			cells := strings.Split(strings.Trim(l, "|"), "|")
			design = append(design, strings.TrimSpace(cells[0])+" | "+strings.TrimSpace(cells[len(cells)-1]))
		case in:
			in = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, l := range layers {
		ours = append(ours, l.row+" | "+l.cell)
	}
	slices.Sort(design)
	slices.Sort(ours)
	for _, r := range design {
		if !slices.Contains(ours, r) {
			t.Errorf("DESIGN.md has the row %q, which the layer test does not", r)
		}
	}
	for _, r := range ours {
		if !slices.Contains(design, r) {
			t.Errorf("the layer test has the row %q, which DESIGN.md does not", r)
		}
	}
}

// rowOf returns the row a package is in: a test kit's, or the row that
// lists it, or, for a package under X/internal/, X's.
func rowOf(pkg string) (string, bool) {
	if isTestKit(pkg) {
		return "test kits", true
	}
	if parent, ok := internalTo(pkg); ok {
		pkg = parent
	}
	for id, l := range layers {
		for _, p := range l.pkgs {
			if m, _ := path.Match(p, pkg); m {
				return id, true
			}
		}
	}
	return "", false
}

// allowed reports whether row from may import row to: directly, or
// through the rows it may import.
func allowed(from, to string) bool {
	seen := map[string]bool{}
	var walk func(id string) bool
	walk = func(id string) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		for _, m := range layers[id].may {
			if m == to || walk(m) {
				return true
			}
		}
		return false
	}
	switch from {
	case "cli":
		return to != "main"
	case "test kits":
		return to != "main" && to != "cli"
	}
	return walk(from)
}

// internalTo returns X for a package X/internal/..., Go's own rule for
// who may import it.
func internalTo(pkg string) (string, bool) {
	if i := strings.Index(pkg, "/internal/"); i >= 0 {
		return pkg[:i], true
	}
	return "", false
}

// isTestKit reports whether pkg is a test kit (irtest, linttest,
// clitreetest, rendertest, gnmitest, sshtest, slurmtest: emulated devices,
// harnesses, golden helpers), which only tests may import; `go list`'s
// Imports, which the layer test reads, leave out what _test.go files
// import.
func isTestKit(pkg string) bool {
	return strings.HasSuffix(path.Base(pkg), "test")
}
