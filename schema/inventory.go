package schema

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"

	"github.com/rocefab/rocefab/compiler/diag"
)

// Inventory says how devices are reached (INTENT.md section 2). It holds
// references to secrets (an environment variable's name, a key file's
// path), never secrets.
type Inventory struct {
	Defaults    Access            `json:"defaults"`
	Platforms   map[string]Access `json:"platforms"`
	Hosts       Access            `json:"hosts"`
	Address     map[string]string `json:"address"`
	PasswordEnv string            `json:"passwordEnv"`
}

// Access is how one device or group of devices is reached. Unset fields
// fall back to the less specific level (hosts or platform, then defaults).
type Access struct {
	Transport  string `json:"transport,omitempty"`
	Port       int    `json:"port,omitempty"`
	Username   string `json:"username,omitempty"`
	Auth       string `json:"auth,omitempty"`
	KeyFile    string `json:"keyFile,omitempty"`
	KnownHosts string `json:"knownHosts,omitempty"`
	Sudo       bool   `json:"sudo,omitempty"`
	Insecure   bool   `json:"insecure,omitempty"`
	// CAFile is the PEM file of the authorities that sign the devices'
	// gNMI (TLS) certificates, relative to the inventory's directory; empty
	// means the system's roots.
	CAFile string `json:"caFile,omitempty"`
}

// maxInventoryBytes bounds an inventory file: addresses of every device
// of a 100,000-GPU fabric, one per line, take a few MiB.
const maxInventoryBytes = 64 << 20

// LoadInventory reads an inventory (.cue or .json) and checks it against
// #Inventory. Findings are RF001 diagnostics with positions; an error means
// the file could not be read.
func LoadInventory(file string) (*Inventory, diag.List, error) {
	// Read it first, whatever its kind: a named pipe or an unreadable file
	// is an error with its cause, never a hang or a schema finding.
	b, err := readRegular(file, maxInventoryBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read inventory: %w", err)
	}
	ctx := cuecontext.New()
	var user cue.Value
	if strings.HasSuffix(file, ".json") {
		if !json.Valid(b) {
			return nil, jsonSyntaxDiags(file, b), nil
		}
		user = ctx.CompileBytes(b, cue.Filename(file))
	} else {
		insts := load.Instances([]string{"./" + filepath.Base(file)}, &load.Config{Dir: filepath.Dir(file)})
		if err := insts[0].Err; err != nil {
			return nil, loadDiags(err, file), nil
		}
		user = ctx.BuildInstance(insts[0])
	}
	if err := user.Err(); err != nil {
		return nil, cueDiags(err, user, cue.Value{}, file), nil
	}
	schemaVal := ctx.CompileString(FabricCUE+"\n"+strings.Replace(InventoryCUE, "\npackage schema\n", "\n", 1), cue.Filename(schemaFile))
	def := schemaVal.LookupPath(cue.ParsePath("#Inventory"))
	if err := def.Err(); err != nil {
		return nil, nil, fmt.Errorf("internal error: the embedded inventory schema does not compile: %v", err)
	}
	v := user.Unify(def)
	if err := v.Validate(cue.Concrete(true), cue.All()); err != nil {
		return nil, cueDiags(err, user, def, file), nil
	}
	b, err = v.MarshalJSON()
	if err != nil {
		return nil, cueDiags(err, user, def, file), nil
	}
	inv := &Inventory{}
	if err := json.Unmarshal(b, inv); err != nil {
		return nil, nil, fmt.Errorf("internal error: decoding the inventory: %v", err)
	}
	if inv.Defaults.Auth == "password" || inv.Hosts.Auth == "password" {
		if inv.PasswordEnv == "" {
			pos := posOf(user, []string{"passwordEnv"}, file)
			return nil, diag.List{schemaDiag(pos, "passwordEnv: missing value: auth \"password\" reads the password from this environment variable")}, nil
		}
	}
	return inv, nil, nil
}

// For returns how to reach a device of a platform ("eos", ..., "linux"):
// the platform's (or, for hosts, the hosts') settings over the defaults,
// and the device's address from the most specific matching pattern.
func (inv *Inventory) For(name, platform string) (Access, string) {
	a := inv.Defaults
	over := inv.Platforms[platform]
	if platform == "linux" {
		over = merge(over, inv.Hosts)
	}
	a = merge(a, over)
	return a, inv.address(name)
}

func merge(a, b Access) Access {
	if b.Transport != "" {
		a.Transport = b.Transport
	}
	if b.Port != 0 {
		a.Port = b.Port
	}
	if b.Username != "" {
		a.Username = b.Username
	}
	if b.Auth != "" {
		a.Auth = b.Auth
	}
	if b.KeyFile != "" {
		a.KeyFile = b.KeyFile
	}
	if b.KnownHosts != "" {
		a.KnownHosts = b.KnownHosts
	}
	if b.CAFile != "" {
		a.CAFile = b.CAFile
	}
	a.Sudo = a.Sudo || b.Sudo
	a.Insecure = a.Insecure || b.Insecure
	return a
}

// address picks the most specific pattern matching name: an exact name
// beats any glob, a glob with more literal characters beats one with
// fewer. "{name}" in the value is replaced by the device name.
func (inv *Inventory) address(name string) string {
	if a, ok := inv.Address[name]; ok {
		if a == "" {
			return name
		}
		return strings.ReplaceAll(a, "{name}", name)
	}
	// Only globs are left to match: the names without a metacharacter,
	// one per device in a large inventory, are skipped unsorted.
	var globs []string
	for pat := range inv.Address {
		if strings.ContainsAny(pat, `*?[\`) {
			globs = append(globs, pat)
		}
	}
	slices.Sort(globs)
	best, bestScore := "", -1
	for _, pat := range globs {
		ok, err := path.Match(pat, name)
		if err != nil || !ok {
			continue
		}
		score := len(strings.NewReplacer("*", "", "?", "", "[", "", "]", "").Replace(pat))
		if pat == name {
			score = 1 << 30
		}
		if score > bestScore {
			best, bestScore = inv.Address[pat], score
		}
	}
	if best == "" {
		return name
	}
	return strings.ReplaceAll(best, "{name}", name)
}
