package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// shells maps each shell completion knows to cobra's generator for it.
// It replaces cobra's default completion command, whose parent command
// printed its help and exited 0 for a shell it did not know, so that a
// script writing the completion file silently wrote a help text.
var shells = map[string]func(root *cobra.Command, w io.Writer) error{
	"bash":       func(r *cobra.Command, w io.Writer) error { return r.GenBashCompletionV2(w, true) },
	"zsh":        func(r *cobra.Command, w io.Writer) error { return r.GenZshCompletion(w) },
	"fish":       func(r *cobra.Command, w io.Writer) error { return r.GenFishCompletion(w, true) },
	"powershell": func(r *cobra.Command, w io.Writer) error { return r.GenPowerShellCompletionWithDesc(w) },
}

// shellNames lists the shells in the order help and errors give them.
func shellNames() []string { return slices.Sorted(maps.Keys(shells)) }

func newCompletionCmd() *cobra.Command {
	names := shellNames()
	return &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print the shell completion script (" + strings.Join(names, ", ") + ")",
		Long: `Print a script that completes rocefab's commands, flags and arguments in SHELL, one of
` + strings.Join(names, ", ") + `. Load it in the current shell, or save it where the shell looks for
completions, e.g. for bash:

  source <(rocefab completion bash)

Exit codes:
  0  printed
  2  no SHELL, or a shell rocefab cannot complete for`,
		Example:   "  rocefab completion bash > rocefab.bash\n  rocefab completion zsh > _rocefab",
		ValidArgs: names,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return withCode(exitError, fmt.Errorf("completion takes one SHELL: allowed are %s", strings.Join(names, ", ")))
			}
			if _, ok := shells[args[0]]; !ok {
				return withCode(exitError, fmt.Errorf("completion: unknown shell %q: allowed are %s", args[0], strings.Join(names, ", ")))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := shells[args[0]](cmd.Root(), cmd.OutOrStdout()); err != nil {
				return withCode(exitError, err)
			}
			return nil
		},
	}
}
