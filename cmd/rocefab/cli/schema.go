package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/schema"
)

func newSchemaCmd() *cobra.Command {
	var inventory bool
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the embedded CUE schema (#Fabric), for editors and cue vet",
		Long: `Print the CUE schema every intent is unified with (#Fabric), or with --inventory the schema of
the inventory file (#Inventory). Save it and check an intent with cue itself; cue vet checks a
schema selected with -d against data files only (JSON, YAML), so export a CUE intent first:

  rocefab schema > schema.cue && cue export fabric.cue > fabric.json && cue vet -d '#Fabric' schema.cue fabric.json

rocefab lint checks the same schema and more, with positions in fabric.cue itself.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if inventory {
				fmt.Fprint(cmd.OutOrStdout(), schema.InventoryCUE)
				return nil
			}
			fmt.Fprint(cmd.OutOrStdout(), schema.FabricCUE)
			return nil
		},
	}
	cmd.Flags().BoolVar(&inventory, "inventory", false, "print the inventory schema (#Inventory) instead")
	return cmd
}
