package lint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// TestRulesDoc keeps docs/rules.md, the rule reference, generated from the
// rules themselves: the doc a user reads is the one `rocefab lint --explain`
// prints. ROCEFAB_UPDATE=1 rewrites it.
func TestRulesDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Lint rules\n\n")
	b.WriteString("Generated from the rules (`compiler/lint`); `rocefab lint --explain RFnnn` prints the same text.\n")
	b.WriteString("Findings carry the position of the intent field that caused them. `--fail-on error` (the default)\n")
	b.WriteString("makes errors fail a CI job; `--fail-on warning` makes warnings fail it too. Informational findings\n")
	b.WriteString("are shown with `--info`.\n\n")
	b.WriteString("| ID | name | severity | finds |\n|---|---|---|---|\n")
	for _, a := range lint.All() {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", a.ID, strings.ToLower(a.ID+"-"+a.Name), a.Name, a.Severity, a.Title)
	}
	for _, a := range lint.All() {
		fmt.Fprintf(&b, "\n## %s %s\n\n%s, %s.\n\n%s\n", a.ID, a.Name, a.Severity, a.Title, a.Doc)
	}
	rendertest.Golden(t, "../../docs/rules.md", []byte(b.String()))
}
