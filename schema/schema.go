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
	"strings"
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

// NamePattern is what every name must match: the fabric, devices,
// tenants, classes and the literal text of naming patterns. Names become
// file and directory names in a build, so a name never holds '/' or '\',
// and since it starts with a letter or digit it is never "." or "..": no
// name can lead a path out of the output directory. It also keeps shell
// and CLI metacharacters (`;`, `$(`, quotes, newlines, spaces) out of
// every configuration rocefab writes.
const NamePattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`

// InterfacePattern is what interface names must match (switch ports such
// as "Ethernet1/1", NIC netdevs): a name that may also hold '/', which
// platforms use to number ports. Interfaces never become paths.
const InterfacePattern = `^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`

// NameForms says in words what NamePattern allows.
const NameForms = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"

// InterfaceForms says in words what InterfacePattern allows.
const InterfaceForms = "1 to 64 letters, digits, '.', '_', '/' or '-', starting with a letter or digit"

var (
	nameRE      = regexp.MustCompile(NamePattern)
	interfaceRE = regexp.MustCompile(InterfacePattern)
)

// ValidName reports whether s may be used as a name.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// ValidInterface reports whether s may be used as an interface name.
func ValidInterface(s string) bool { return interfaceRE.MatchString(s) }

// ReservedNames are the top-level entries of a build directory that belong
// to the fabric rather than to a device: a device of that name would write
// its artifacts into them. Compared without case, for file systems that
// ignore it.
// A test in cmd/rocefab/cli builds every example and checks that each
// top-level entry that is not a device's is one of them.
var ReservedNames = []string{"SUMMARY.md", "inventory.json", "hosts", "tenants", "slurm", "k8s", "monitoring", ".rocefab-manifest.json"}

// Reserved reports whether a device may not be named s.
func Reserved(s string) bool {
	for _, r := range ReservedNames {
		if strings.EqualFold(s, r) {
			return true
		}
	}
	return false
}
