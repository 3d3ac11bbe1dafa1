// Package routing reaches a fabric's devices for plan and apply: it routes
// each device of an inventory to the transport its access names (gNMI,
// SSH, the host runtime, or the directory running/ beside the intent),
// pairs each with the platform that models what the transport returns,
// and keeps the one registry of the platforms rocefab renders natively.
// The registry's contents, the platform renderers and the inventory's
// loader, are of layers routing does not import (DESIGN.md): the CLI's
// wiring fills it (Register). The CLI asks routing for one Route and hands
// that to the planner and the rollout (targets); no transport is chosen
// anywhere else.
package routing

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/dir"
)

// Options say how plan and apply reach a fabric's devices.
type Options struct {
	// Dir is the intent's directory: running/ is beside it, and the
	// route's name gives paths relative to it.
	Dir string
	// Devices are every device of the fabric, each routed (a plan of a
	// saved plan's devices, the host runtime); Reached those the command
	// goes to (nil: all of Devices), which the warnings count.
	Devices, Reached []*ir.Device
	// Inventory is the inventory file (#Inventory); without one every
	// device is read from running/ beside the intent.
	Inventory string
	// Plaintext sends gNMI without TLS; IgnoreHostKeys logs in over SSH
	// without checking host keys. Both are for lab devices, and Warn is
	// told so loudly.
	Plaintext, IgnoreHostKeys bool
	// LockPath is the fabric's lock file; the journal of pushes waiting
	// for their confirmation is kept beside it.
	LockPath string
	// Warn receives the warnings: insecure options, a confirmed change a
	// switch could not save.
	Warn io.Writer
	// Passphrase asks an encrypted SSH key's passphrase; nil when no one
	// can answer (the key must then be in the agent).
	Passphrase func(keyFile string) ([]byte, error)
	// StatePlatforms, by device platform, model running configurations
	// in place of the registry's platforms (tests stand in their own).
	StatePlatforms map[string]renderers.Platform
}

// Route is how a fabric's devices are reached: the target that reads and
// pushes them, the platforms that model what it returns, and its name as
// a plan records it.
type Route struct {
	Target    targets.Target
	Platforms targets.Platforms
	// Name describes where the target reads: "directory running", or
	// "inventory inv.json" (with " (gNMI without TLS)" when so).
	Name   string
	closer io.Closer
}

// Close closes the target's connections, when it has any.
func (r *Route) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Reach makes the route of the fabric's devices: the directory running/
// beside the intent without an inventory, or each device's transport. The
// diagnostics are the inventory's findings (a file that does not load
// as #Inventory); the error is an inventory that cannot work.
func Reach(opt Options) (*Route, diag.List, error) {
	if opt.Warn == nil {
		opt.Warn = io.Discard
	}
	m := models{state: opt.StatePlatforms}
	if opt.Inventory == "" {
		if opt.Plaintext {
			return nil, nil, errors.New("--insecure-plaintext: without --inventory nothing is reached over gNMI")
		}
		root := filepath.Join(opt.Dir, "running")
		name := fmt.Sprintf("%T", (*dir.Target)(nil))
		if rel, err := filepath.Rel(opt.Dir, root); err == nil {
			name = "directory " + filepath.ToSlash(rel)
		}
		return &Route{Target: dir.New(root, m.appliers), Platforms: m.forTransport(transportDir), Name: name}, nil, nil
	}
	r, ds, err := reachInventory(opt, m)
	if err != nil || len(ds) > 0 {
		return nil, ds, err
	}
	return &Route{Target: r, Platforms: r.platform, Name: inventoryName(opt.Dir, opt.Inventory, opt.Plaintext), closer: r}, nil, nil
}

// RelTo returns target's path relative to the directory base, with
// forward slashes.
func RelTo(base, target string) (string, error) {
	ab, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	at, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ab, at)
	return filepath.ToSlash(rel), err
}
