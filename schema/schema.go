// Package schema owns the rocefab intent language: the embedded CUE schema
// (#Fabric and #Inventory), loading a file or a package directory, unit
// parsing, and decoding into Go types.
//
// Everything the schema rejects, and every malformed unit, is reported as a
// diagnostic of rule RF001 with the position of the offending field in the
// user's file. An error return means the intent could not be read at all
// (a missing path, an unreadable file).
package schema

import (
	_ "embed"
	"regexp"
)

// FabricCUE is the schema of a fabric intent.
//
//go:embed fabric.cue
var FabricCUE string

// InventoryCUE is the schema of an inventory (how devices are reached).
//
//go:embed inventory.cue
var InventoryCUE string

// schemaFile is the name schema positions carry, so that a position in the
// schema is never mistaken for one in the user's file.
const schemaFile = "<schema>/fabric.cue"

// RuleSchema and NameSchema identify the diagnostics of this package.
const (
	RuleSchema = "RF001"
	NameSchema = "schema"
)

// NamePattern is what every name that can reach a rendered artifact must
// match. It keeps shell and CLI metacharacters (`;`, `$(`, quotes,
// newlines, spaces) out of every configuration rocefab writes.
const NamePattern = `^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`

// NameForms says in words what NamePattern allows.
const NameForms = "1 to 64 letters, digits, '.', '_', '/' or '-', starting with a letter or digit"

var nameRE = regexp.MustCompile(NamePattern)

// ValidName reports whether s may be used as a name.
func ValidName(s string) bool { return nameRE.MatchString(s) }
