// Package cli is rocefab's command line: one file per command, each parsing
// its flags into a typed struct, calling the core, choosing a human or JSON
// view, and mapping the result to an exit code. It is the only package that
// prints and the only one that knows every renderer.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/compiler/lint"
)

// Exit codes shared by the commands (each command's help says what its
// codes mean).
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// exitError carries an exit code through cobra's error return.
type codeError struct {
	code int
	err  error // nil when the command already printed what went wrong
}

func (e *codeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// withCode returns an error that makes Main exit with code; err, if not nil,
// is printed once.
func withCode(code int, err error) error { return &codeError{code: code, err: err} }

// Main runs rocefab with the process's arguments and returns its exit code.
func Main() int { return Run(os.Args[1:], os.Stdout, os.Stderr) }

// Run runs rocefab with args, writing to stdout and stderr, and returns the
// exit code. Tests call it directly.
func Run(args []string, stdout, stderr io.Writer) int {
	if err := lint.Validate(lint.Suite); err != nil {
		fmt.Fprintf(stderr, "rocefab: internal error: %v\n", err)
		return exitError
	}
	root := newRoot(stdout, stderr)
	root.SetArgs(singleDashOut(args))
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ce *codeError
	if errors.As(err, &ce) {
		if ce.err != nil {
			fmt.Fprintf(stderr, "rocefab: %v\n", ce.err)
		}
		return ce.code
	}
	// Flag and argument errors from cobra: could not run. The help to read
	// is the command's.
	help := root.Name()
	if c, _, ferr := root.Find(args); ferr == nil {
		help = c.CommandPath()
	}
	fmt.Fprintf(stderr, "rocefab: %v\nRun '%s --help' for usage.\n", err, help)
	return exitError
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "rocefab",
		Short: "Compile a lossless RoCE v2 fabric intent into checked per-device configurations",
		Long: `rocefab takes one small declarative intent (CUE) for a lossless RoCE v2 GPU fabric, checks its
physics and cross-layer consistency, and renders per-device configurations for switches (Arista EOS,
NVIDIA NVUE, SONiC, Cisco NX-OS, OpenConfig) and hosts (NIC QoS, ECN/DCQCN, tc, NCCL).

PATH is an intent: a .cue file, a .json file, or a directory of .cue files (default: the current
directory).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// --version prints what the version command prints.
	root.Version = version()
	root.SetVersionTemplate(versionLine("{{.Version}}"))
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newLintCmd(), newBuildCmd(), newPlanCmd(), newApplyCmd(), newExplainCmd(), newDoctorCmd(), newSchemaCmd(), newVersionCmd(), newCompletionCmd())
	return root
}

// pathArg returns the intent path of a command's arguments.
func pathArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return "."
}

// isTerminal reports whether w is a terminal, for colour and progress.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
