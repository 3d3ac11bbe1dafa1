package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/schema"
)

const lintDoc = `Check an intent: the schema (RF001) and the physics and cross-layer rules (RF101-RF120).

Findings are printed as file:line:col: severity RULE name: message, or as JSON, SARIF 2.1.0 or
GitHub workflow annotations with --format. --explain RF102 prints a rule's documentation.

Exit codes:
  0  no finding at or above --fail-on (default: error)
  1  findings at or above --fail-on
  2  the intent could not be read`

type lintArgs struct {
	info    bool
	format  diag.Format
	failOn  string
	explain string
}

func newLintCmd() *cobra.Command {
	a := lintArgs{format: diag.FormatText}
	cmd := &cobra.Command{
		Use:   "lint [PATH]",
		Short: "Check an intent's schema, physics and cross-layer consistency",
		Long:  lintDoc,
		Example: `  rocefab lint examples/pod-2048
  rocefab lint --format sarif . > rocefab.sarif
  rocefab lint --explain RF102`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runLint(cmd, a, args) },
	}
	cmd.Flags().VarP(&a.format, "format", "o", "output format: text, json, sarif or github")
	cmd.Flags().StringVar(&a.failOn, "fail-on", "error", "lowest severity that makes lint exit 1: error or warning")
	cmd.Flags().BoolVar(&a.info, "info", false, "also print informational findings (e.g. what OpenConfig cannot carry by design)")
	cmd.Flags().StringVar(&a.explain, "explain", "", "print the documentation of a rule (e.g. RF102) and exit")
	return cmd
}

func runLint(cmd *cobra.Command, a lintArgs, args []string) error {
	out := cmd.OutOrStdout()
	if a.explain != "" {
		r := lint.Lookup(a.explain)
		if r == nil {
			return withCode(exitError, fmt.Errorf("no rule %q: rules are RF001 and RF101 to RF120", a.explain))
		}
		fmt.Fprintf(out, "%s %s (%s): %s\n\n%s\n", r.ID, r.Name, r.Severity, r.Title, r.Doc)
		return nil
	}
	failOn, err := diag.ParseSeverity(a.failOn)
	if err != nil || failOn == diag.Info {
		return withCode(exitError, fmt.Errorf("--fail-on %q: allowed are error, warning", a.failOn))
	}
	ds, err := lintPath(pathArg(args))
	if err != nil {
		return withCode(exitError, err)
	}
	if !a.info {
		ds = slices.DeleteFunc(ds, func(d diag.Diagnostic) bool { return d.Severity == diag.Info })
	}
	if err := printDiags(cmd, ds, a.format); err != nil {
		return withCode(exitError, err)
	}
	if ds.Count(failOn) > 0 {
		return withCode(exitFindings, nil)
	}
	return nil
}

// lintPath loads and compiles the intent at path and returns every finding.
func lintPath(path string) (diag.List, error) {
	in, ds, err := schema.Load(path)
	if err != nil {
		return nil, err
	}
	if in == nil {
		return ds, nil
	}
	_, ds = compiler.Compile(in)
	return ds, nil
}

// printDiags prints findings in the chosen format to stdout.
func printDiags(cmd *cobra.Command, ds diag.List, f diag.Format) error {
	cwd, _ := os.Getwd()
	return diag.Print(cmd.OutOrStdout(), ds, f, diag.Config{Cwd: cwd, Color: f == diag.FormatText && isTerminal(cmd.OutOrStdout()),
		Rules: lint.Infos(), ToolVersion: version()})
}

// summarizeDiags prints findings to stderr for commands whose stdout is
// something else.
func summarizeDiags(cmd *cobra.Command, ds diag.List) {
	if len(ds) == 0 {
		return
	}
	cwd, _ := os.Getwd()
	var b strings.Builder
	_ = diag.Print(&b, ds, diag.FormatText, diag.Config{Cwd: cwd, Color: isTerminal(cmd.ErrOrStderr())})
	fmt.Fprint(cmd.ErrOrStderr(), b.String())
}
