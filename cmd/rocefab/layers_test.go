package main

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

// TestImportLayers keeps the import direction of DESIGN.md: each package
// imports only the project packages below it, and siblings (one renderer,
// another) never import each other. Only the CLI knows everything.
func TestImportLayers(t *testing.T) {
	const mod = "github.com/rocefab/rocefab/"
	// Three CLI renderers read compiler/platforms' statement table, to
	// mark the forms no source confirms in the artifact itself, and the
	// host renderer names its settings by the catalog's elements. The
	// catalog is a leaf (it imports nothing of rocefab's), so this adds no
	// cycle; the rest of the compiler stays out of reach of renderers.
	allowed := map[string][]string{
		"compiler/diag":      {},
		"compiler/ir":        {"compiler/diag"},
		"compiler/ir/irtest": {"compiler/diag", "compiler/ir"},
		"compiler/physics":   {},
		"compiler/platforms": {},
		// The SKU file converter reads vendor files into the catalog's types.
		"compiler/platforms/internal/sonicsku": {"compiler/platforms"},
		"schema":                               {"compiler/diag"},
		"compiler/topology":                    {"compiler/ir"},
		"compiler/placement":                   {"compiler/ir"},
		"compiler/lint":                        {"compiler/diag", "compiler/ir", "compiler/physics", "compiler/platforms"},
		"compiler/lint/linttest":               {"compiler", "compiler/diag", "compiler/ir", "compiler/lint", "schema"},
		"compiler": {"compiler/diag", "compiler/ir", "compiler/lint", "compiler/physics", "compiler/platforms",
			"compiler/topology", "schema"},
		"renderers":               {"compiler/ir"},
		"renderers/rendertest":    {"compiler/ir", "renderers"},
		"renderers/openconfig/oc": {},
		"renderers/openconfig":    {"compiler/ir", "renderers", "renderers/openconfig/oc"},
		"renderers/eos":           {"compiler/ir", "renderers", "compiler/platforms", "renderers/internal/clitree"},
		"renderers/nvue":          {"compiler/ir", "renderers", "compiler/platforms"},
		"renderers/sonic":         {"compiler/ir", "renderers"},
		"renderers/nxos":          {"compiler/ir", "renderers", "compiler/platforms", "renderers/internal/clitree"},
		// The CLI stanza tree EOS and NX-OS share, and their plan and
		// apply plumbing, knows no platform: each gives it its tables.
		"renderers/internal/clitree": {"compiler/ir", "renderers"},
		"renderers/host":             {"compiler/ir", "renderers", "compiler/platforms"},
		"renderers/scheduler":        {"compiler/ir", "compiler/placement", "renderers"},
		"renderers/monitoring":       {"compiler/ir", "renderers"},
		"targets":                    {"compiler/ir", "renderers"},
		"targets/dir":                {"compiler/ir", "renderers", "targets"},
		"targets/gnmi":               {"compiler/ir", "renderers", "targets"},
		"targets/gnmi/gnmitest":      {"renderers/openconfig/oc"},
		"targets/ssh":                {"compiler/ir", "renderers", "targets"},
		"targets/host":               {"compiler/ir", "renderers", "targets"},
		"targets/ssh/sshtest":        {},
		// Routing pairs each device with its transport and with the
		// platform that models what that transport returns.
		"targets/routing": {"compiler/diag", "compiler/ir", "renderers", "renderers/eos", "renderers/host", "renderers/nvue",
			"renderers/nxos", "renderers/openconfig", "renderers/sonic", "schema", "targets", "targets/dir", "targets/gnmi",
			"targets/host", "targets/ssh"},
		"targets/host/hosttest": {"compiler/ir"},
		// Telemetry reads counters and knows no topology; doctor's
		// analysis joins them to the model and imports no transport.
		"targets/telemetry":        {},
		"targets/doctor":           {"compiler/ir", "compiler/placement", "targets/telemetry"},
		"targets/doctor/slurmtest": {},

		// The build's index files: they read the IR (and the compiler's
		// findings, which SUMMARY lists), never the intent.
		"renderers/summary":   {"compiler/diag", "compiler/ir", "renderers"},
		"renderers/inventory": {"compiler/ir", "renderers"},

		// The properties both CLI platforms' tests check; it compiles the
		// examples, so it reaches the compiler and schema (tests only).
		"renderers/internal/clitree/clitreetest": {"compiler", "compiler/ir", "compiler/ir/irtest", "renderers", "renderers/internal/clitree", "schema"},
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../../...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		if !isTestKit(pkg) {
			for _, imp := range fields[1:] {
				if dep := strings.TrimPrefix(imp, mod); dep != imp && isTestKit(dep) {
					t.Errorf("%s imports the test kit %s outside its tests: kits are for tests only", pkg, dep)
				}
			}
		}
		if strings.HasPrefix(pkg, "cmd/") {
			continue // the composition root may import everything
		}
		allow, known := allowed[pkg]
		if !known {
			t.Errorf("package %s has no place in the layer table: add it", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			ok := false
			for _, a := range allow {
				if m, _ := path.Match(a, dep); m {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s: not allowed by the layers (allowed: %v)", pkg, dep, allow)
			}
		}
	}
}

// isTestKit reports whether pkg is a test kit (irtest, linttest,
// clitreetest, rendertest, gnmitest, sshtest, hosttest: emulated devices,
// harnesses, golden helpers), which only tests may import; `go list`'s
// Imports, which the layer test reads, leave out what _test.go files
// import.
func isTestKit(pkg string) bool {
	return strings.HasSuffix(path.Base(pkg), "test")
}
