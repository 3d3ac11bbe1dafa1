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
the inventory file (#Inventory). Save it and check an intent with cue itself:

  rocefab schema > schema.cue && cue vet -d '#Fabric' schema.cue fabric.cue`,
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
