// Command rocefab compiles a lossless RoCE v2 fabric intent into checked,
// per-device configurations.
package main

import (
	"os"
	"runtime/debug"

	"github.com/rocefab/rocefab/cmd/rocefab/cli"
)

// memoryLimit is the soft limit the garbage collector keeps rocefab under
// unless GOMEMLIMIT says otherwise (GOMEMLIMIT=off lifts it). A
// hyperscale-100k build holds about 240 MB of model; with the collector's
// default pacing its heap grows to twice that between collections and the
// process to 550-710 MiB, by how far the collector lags on a loaded
// machine. Under the limit it collects sooner once the heap nears it, and
// the process stays near 520 MiB at no measurable cost. A build now paces
// its collector more eagerly still (cli/build.go) and stays near 330 MB;
// the limit bounds plan and apply of as large a fabric.
const memoryLimit = 512 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(cli.Main())
}
