package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/lint"
)

const lintDoc = `Check an intent: the schema (RF001) and the physics and cross-layer rules (RF101-RF121).

Findings go to stdout, in every format: file:line:col: severity RULE name: message as text (at
most 20, then how many more), or every finding as JSON, SARIF 2.1.0 or GitHub workflow
annotations with --format. Errors that stop lint go to stderr; with --format sarif the log on
stdout records them too, as a failed run. JSON and text paths are relative to the current
directory; SARIF and GitHub paths are relative to the repository root (the nearest directory
above holding .git), so that code scanning and annotations attach to the right file from any
working directory. --explain RF102 prints a rule's documentation (as JSON with --format json).

Exit codes:
  0  no finding at or above --fail-on (default: error)
  1  findings at or above --fail-on
  2  the intent could not be read (where a file stops parsing is reported as RF001 too)`

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
	cmd.Flags().Var(&a.format, "format", "output format: text, json, sarif or github")
	formatAlias(cmd, &a.format)
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
			return withCode(exitError, fmt.Errorf("no rule %q: rules are RF001 and RF101 to RF121", a.explain))
		}
		if a.format == diag.FormatJSON {
			// The keys of a finding (rule, name, severity) and the doc.
			b, err := json.MarshalIndent(map[string]string{"rule": r.ID, "name": r.Name, "severity": fmt.Sprint(r.Severity),
				"title": r.Title, "doc": r.Doc}, "", "  ")
			if err != nil {
				return withCode(exitError, err)
			}
			fmt.Fprintf(out, "%s\n", b)
			return nil
		}
		fmt.Fprintf(out, "%s %s (%s): %s\n\n%s\n", r.ID, r.Name, r.Severity, r.Title, r.Doc)
		return nil
	}
	failOn, err := diag.ParseSeverity(a.failOn)
	if err != nil || failOn == diag.Info {
		return withCode(exitError, fmt.Errorf("--fail-on %q: allowed are error, warning", a.failOn))
	}
	ds, parsed, err := lintPath(pathArg(args))
	if err != nil {
		if a.format == diag.FormatSARIF {
			// A code-scanning upload of an empty log would read as a
			// clean run: record why nothing was checked.
			_ = printDiags(cmd, nil, a.format, err.Error())
		}
		return withCode(exitError, err)
	}
	if !a.info {
		ds = slices.DeleteFunc(ds, func(d diag.Diagnostic) bool { return d.Severity == diag.Info })
	}
	if !parsed {
		// Where the files stop parsing is reported as findings are, with
		// its position; but nothing was checked, so it is not a finding.
		why := "the intent could not be read: " + diag.Plural(len(ds), "error", "errors") + " above"
		if err := printDiags(cmd, ds, a.format, why); err != nil {
			return withCode(exitError, err)
		}
		return withCode(exitError, errors.New(why))
	}
	if err := printDiags(cmd, ds, a.format, ""); err != nil {
		return withCode(exitError, err)
	}
	if ds.Count(failOn) > 0 {
		return withCode(exitFindings, nil)
	}
	return nil
}

// lintPath loads and compiles the intent at path and returns every finding;
// parsed is false when the intent's files did not parse, and ds then says
// where.
func lintPath(path string) (ds diag.List, parsed bool, err error) {
	f, err := compiler.Load(path, compiler.FrontOptions{})
	if f == nil {
		return nil, false, err
	}
	return f.Diags, f.Parsed, nil
}

// printDiags prints lint's findings in the chosen format to stdout, the
// one stream of lint's report. toolErr, when not empty, is why the intent
// could not be checked (SARIF records it).
func printDiags(cmd *cobra.Command, ds diag.List, f diag.Format, toolErr string) error {
	cwd, _ := os.Getwd()
	base := cwd
	if f == diag.FormatGitHub || f == diag.FormatSARIF {
		// GitHub resolves annotation paths and SARIF %SRCROOT% against
		// the repository's root, not the directory lint ran in.
		base = gitTopLevel(cwd)
	}
	return diag.Print(cmd.OutOrStdout(), absFiles(ds, cwd), f, diag.Config{Cwd: base,
		Color: f == diag.FormatText && isTerminal(cmd.OutOrStdout()), Rules: lint.Infos(), ToolVersion: version(),
		TextLimit: diag.DefaultTextLimit, ToolError: toolErr})
}

// summarizeDiags prints findings as text to stderr for commands whose
// stdout is something else (build, explain): at most the text limit, with
// the lint command that lists them all.
func summarizeDiags(cmd *cobra.Command, ds diag.List) {
	if len(ds) == 0 {
		return
	}
	cwd, _ := os.Getwd()
	var b strings.Builder
	_ = diag.Print(&b, absFiles(ds, cwd), diag.FormatText, diag.Config{Cwd: cwd, Color: isTerminal(cmd.ErrOrStderr()),
		TextLimit: diag.DefaultTextLimit, MoreHint: "rocefab lint --format json PATH lists all"})
	fmt.Fprint(cmd.ErrOrStderr(), b.String())
}

// absFiles returns ds with relative file names made absolute against cwd,
// so that the printers can make them relative to another base (the
// repository root). ds itself is not modified.
func absFiles(ds diag.List, cwd string) diag.List {
	if cwd == "" {
		return ds
	}
	out := slices.Clone(ds)
	for i := range out {
		if f := out[i].Pos.File; f != "" && !filepath.IsAbs(f) {
			out[i].Pos.File = filepath.Join(cwd, f)
		}
	}
	return out
}

// gitTopLevel returns the root of the git work tree holding dir: the nearest
// directory at or above dir with a .git entry (a directory, or the file a
// linked work tree or submodule has). It reads the file system instead of
// running git, which may not be installed where lint runs. Without one it
// returns dir.
func gitTopLevel(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// formatAlias keeps `-o json` (the form of earlier releases and of the
// command-line contract) working as a hidden, deprecated spelling of
// --format on commands that only print: -o names where output is written,
// so only a format name is taken, and anything else gets the hint.
func formatAlias(cmd *cobra.Command, format pflag.Value) {
	cmd.Flags().VarP(format, "output-format", "o", "deprecated: use --format")
	_ = cmd.Flags().MarkHidden("output-format")
	cmd.SetFlagErrorFunc(formatFlagHint)
}

// formatFlagHint explains, for a flag error, that -o is not a format
// flag: across rocefab, --format picks an output format and -o/--out
// names where output is written.
func formatFlagHint(_ *cobra.Command, err error) error {
	if strings.Contains(err.Error(), "'o' in -o") || strings.Contains(err.Error(), "--output") || strings.Contains(err.Error(), `"-o"`) {
		return fmt.Errorf("%w: use --format to choose an output format (-o/--out names where output is written)", err)
	}
	return err
}

// unreadIntent reports an intent whose files did not parse: where they
// stop parsing goes to stderr with its position, and the command exits 2,
// since nothing of the intent was checked (build's and explain's help).
func unreadIntent(cmd *cobra.Command, ds diag.List) error {
	summarizeDiags(cmd, ds)
	return withCode(exitError, fmt.Errorf("the intent could not be read: %s above", diag.Plural(max(len(ds), 1), "error", "errors")))
}
