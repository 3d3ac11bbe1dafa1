package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rocefab/rocefab/cmd/rocefab/cli"
)

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) != "" {
		os.Exit(cli.Main())
	}
	testscript.Main(m, map[string]func(){"rocefab": func() { os.Exit(cli.Main()) }})
}

// TestScripts runs the end-to-end scenarios in testdata/script: each is a
// txtar archive of intents and the commands run on them. ROCEFAB_UPDATE=1
// rewrites the files they compare with cmp.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       os.Getenv("ROCEFAB_UPDATE") != "",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}
