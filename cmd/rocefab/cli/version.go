package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version returns the module version rocefab was built as, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// versionLine is the one line both `rocefab version` and `rocefab
// --version` print.
func versionLine(v string) string { return "rocefab " + v + "\n" }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rocefab's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprint(cmd.OutOrStdout(), versionLine(version()))
		},
	}
}
