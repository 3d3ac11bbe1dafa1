// Package targets brings a compiled fabric to its devices: the Target
// interface through which a device's running configuration is read and
// changed, the plan (what each device runs, what the intent wants, what
// changing it disrupts), the plan file, and the rollout that applies a plan
// in waves with commit-confirm, a convergence gate and rollback.
//
// A target knows transports, not platforms: it returns a device's running
// configuration in the form the device prints it and pushes the
// remediation a platform computed. Platforms (renderers.Platform) know
// syntax, not transports. Plan and Apply join the two.
package targets

import (
	"context"
	"fmt"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// Target reaches devices. Its methods are called concurrently for
// different devices, never for the same device at once.
type Target interface {
	// Read returns d's running configuration as the device prints it, one
	// artifact per file it would be saved in (Path "<device>/<file>"). A
	// device that has no configuration yet returns no artifacts and no
	// error; an error means the configuration could not be read.
	Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error)
	// Push applies rem to d and returns when the device has taken it (or
	// refused it: then nothing of rem may be left applied, or the error
	// says so).
	Push(ctx context.Context, d *ir.Device, rem renderers.Remediation) error
}

// Confirmer is a target that can push a change the device reverts by
// itself unless it is confirmed in time: EOS `commit timer`, NVUE
// `apply --confirm`, NX-OS `commit confirmed`, the gNMI commit-confirmed
// extension, the directory target's backup.
type Confirmer interface {
	// PushConfirmed applies rem as Push does, as a commit that d rolls
	// back by itself when Confirm has not been called within timeout.
	PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error
	// Confirm makes d's pending commit permanent.
	Confirm(ctx context.Context, d *ir.Device) error
}

// RollBacker is a target that can undo, at once, the last push to a device
// that is not yet confirmed (or, for a target without confirmation, the
// last push).
type RollBacker interface {
	Rollback(ctx context.Context, d *ir.Device) error
}

// Noter is a target that did something otherwise than the rollout asked
// for and says so: a device that takes no commit-confirmed, read in
// another way. The report carries the notes.
type Noter interface {
	Notes() []string
}

// Differ is a target whose devices print their own diff of a push (EOS
// show session-config diffs, NVUE nv config diff, what SONiC's config
// commands printed): an operator reads what the device itself says changed
// next to what rocefab planned. The report carries the diffs.
type Differ interface {
	// DeviceDiffs returns the diffs by device name; nil when no device
	// printed one.
	DeviceDiffs() map[string]string
}

// Locker is a target that can hold the fabric against a second apply: a
// lock file, or the devices' own configuration locks. Lock fails, saying
// who holds it, when another apply does; release gives it up.
type Locker interface {
	Lock(ctx context.Context, devices []*ir.Device) (release func() error, err error)
}

// PutBackError is a push that failed after it changed the device, and
// whose target then could not put back what it had changed: the device
// may run part of the change. Apply never reports such a device rolled
// back, even when reading it back finds its earlier state (what a target
// reads need not be all the push touched: a server's settings file, its
// runtime).
type PutBackError struct {
	Err     error // why the push failed
	PutBack error // why putting it back failed
}

func (e *PutBackError) Error() string {
	return fmt.Sprintf("%v; putting it back failed: %v", e.Err, e.PutBack)
}

func (e *PutBackError) Unwrap() []error { return []error{e.Err, e.PutBack} }
