// Command rocefab compiles a lossless RoCE v2 fabric intent into checked,
// per-device configurations.
package main

import (
	"os"

	"github.com/rocefab/rocefab/cmd/rocefab/cli"
)

func main() { os.Exit(cli.Main()) }
