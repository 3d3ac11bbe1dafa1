package sshtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SONiC emulates a SONiC switch's Linux shell for the commands rocefab
// runs one per channel, without a terminal, with what sonic-utilities
// (sonic-net/sonic-utilities@691b1bbc, config/main.py and
// generic_config_updater/) prints and refuses:
//
//   - `sonic-cfggen -d --print-data`: CONFIG_DB as JSON;
//   - `sonic-db-dump -n COUNTERS_DB -k 'COUNTERS*'`: the counters
//     SetCounters gave, as COUNTERS_DB holds them (see Counters);
//   - `umask 077; cat > /tmp/NAME.json` keeps its input as a file, `cat
//     FILE` prints one (also /etc/sonic/config_db.json), `rm -f FILE`
//     removes one; `sudo -n install -m 644 /tmp/A.json /etc/sonic/B.json`
//     and `sudo -n mv -f /etc/sonic/B.json /etc/sonic/config_db.json`
//     put one in place;
//   - `sudo -n config checkpoint NAME`, `config rollback NAME`, `config
//     delete-checkpoint NAME`;
//   - `sudo -n config apply-patch FILE`: FILE must be an RFC 6902 array
//     (anything else is "Invalid patch format in file"); its add, replace
//     and remove operations take RFC 6901 paths and fail, with nothing
//     applied, the way python-jsonpatch words it ("can't replace a
//     non-existent object 'x'", "member 'x' not found"); a patch that
//     touches BUFFER_POOL is refused as GCU's rdma_config_update_validator
//     refuses it (generic_config_updater/gcu_field_operation_validators
//     .conf.json), since that takes a config reload;
//   - `sudo -n config interface breakout PORT 'MODE' -y` sets
//     BREAKOUT_CFG|PORT brkout_mode, refusing a port not in BREAKOUT_CFG,
//     and, with status 1 and "Dependencies Exist. No further action will
//     be taken" (config/main.py breakout_Ports), a port that a
//     PORT_QOS_MAP, PFC_WD, BUFFER_PG, BUFFER_QUEUE or QUEUE row or a
//     CABLE_LENGTH field names; it creates no ports, having no
//     platform.json, so the parent is the one port it deletes;
//   - `sudo -n config save -y` writes CONFIG_DB to
//     /etc/sonic/config_db.json; `sudo -n config reload -y` loads that
//     file into CONFIG_DB.
//
// A patch is applied in one step where GCU orders it in several; no YANG
// model is checked. sudo never asks for a password.
//
// Of its Faults, Reject refuses a patch, or a breakout, that contains it;
// HangupOnCommit drops the connection after a patch took effect and
// before its exit status; RefuseConfirm fails `config save`; Delay slows
// every command.
type SONiC struct {
	device
	configDB    []byte
	saved       []byte // /etc/sonic/config_db.json
	checkpoints map[string][]byte
	files       map[string][]byte // under /tmp
	staged      map[string][]byte // other files under /etc/sonic
	reloads     int
}

// NewSONiCRendered returns a SONiC switch whose CONFIG_DB holds the
// tables of every document the SONiC platform rendered for it (a
// switch's CONFIG_DB holds BREAKOUT_CFG, which the platform renders as a
// file of its own), changed by edits in order (configuration rocefab does
// not own, a drift), written as `config save` writes config_db.json.
func NewSONiCRendered(docs [][]byte, edits ...func(db map[string]any)) (*SONiC, error) {
	db := map[string]any{}
	for i, doc := range docs {
		var tables map[string]any
		if err := json.Unmarshal(doc, &tables); err != nil {
			return nil, fmt.Errorf("rendered document %d: %w", i+1, err)
		}
		maps.Copy(db, tables)
	}
	for _, e := range edits {
		e(db)
	}
	b, err := json.MarshalIndent(db, "", "    ")
	if err != nil {
		return nil, err
	}
	return NewSONiC(append(b, '\n')), nil
}

// NewSONiC returns a SONiC switch whose CONFIG_DB, and its saved copy,
// is configDB.
func NewSONiC(configDB []byte) *SONiC {
	return &SONiC{configDB: append([]byte(nil), configDB...), saved: append([]byte(nil), configDB...),
		checkpoints: map[string][]byte{}, files: map[string][]byte{}, staged: map[string][]byte{}}
}

// ConfigDB returns the running CONFIG_DB.
func (s *SONiC) ConfigDB() []byte { return s.copyOf(&s.configDB) }

// Saved returns /etc/sonic/config_db.json.
func (s *SONiC) Saved() []byte { return s.copyOf(&s.saved) }

// Reloads counts the config reloads run.
func (s *SONiC) Reloads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reloads
}

// Leftovers returns the checkpoints and files rocefab left on the switch.
func (s *SONiC) Leftovers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.checkpoints {
		out = append(out, "checkpoint "+n)
	}
	for n := range s.files {
		out = append(out, "file "+n)
	}
	for n := range s.staged {
		out = append(out, "file "+n)
	}
	slices.Sort(out)
	return out
}

const sonicConfigDB = "/etc/sonic/config_db.json"

var (
	sonicName       = `([A-Za-z0-9_-]{1,64})`
	sonicFile       = `(/tmp/[A-Za-z0-9_-]{1,64}\.json)`
	sonicEtc        = `(/etc/sonic/[A-Za-z0-9_-]{1,64}\.json)`
	sonicWrite      = regexp.MustCompile(`^umask 077; (set -C; )?cat > ` + sonicFile + `$`)
	sonicRemove     = regexp.MustCompile(`^rm -f ` + sonicFile + `$`)
	sonicCat        = regexp.MustCompile(`^cat (` + sonicFile[1:len(sonicFile)-1] + `|` + sonicEtc[1:len(sonicEtc)-1] + `)$`)
	sonicInstall    = regexp.MustCompile(`^sudo -n install -m 644 ` + sonicFile + ` ` + sonicEtc + `$`)
	sonicMove       = regexp.MustCompile(`^sudo -n mv -f ` + sonicEtc + ` ` + sonicEtc + `$`)
	sonicCheckpoint = regexp.MustCompile(`^sudo -n config checkpoint ` + sonicName + `$`)
	sonicPatch      = regexp.MustCompile(`^sudo -n config apply-patch ` + sonicFile + `$`)
	sonicRollback   = regexp.MustCompile(`^sudo -n config rollback ` + sonicName + `$`)
	sonicDelete     = regexp.MustCompile(`^sudo -n config delete-checkpoint ` + sonicName + `$`)
	sonicBreakout   = regexp.MustCompile(`^sudo -n config interface breakout ([A-Za-z0-9_-]{1,64}) '([A-Za-z0-9_.+()\[\]-]{1,64})' -y$`)
)

// Exec runs one command.
func (s *SONiC) Exec(cmd string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
	s.mu.Lock()
	s.received = append(s.received, cmd)
	delay := s.faults.Delay
	s.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	if m := sonicWrite.FindStringSubmatch(cmd); m != nil {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return 1, false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		// set -C (noclobber): the shell refuses to write over a file
		// that exists, as bash prints it.
		if _, ok := s.files[m[2]]; ok && m[1] != "" {
			fmt.Fprintf(stderr, "bash: %s: cannot overwrite existing file\n", m[2])
			return 1, false
		}
		s.files[m[2]] = b
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(format string, args ...any) (int, bool) {
		fmt.Fprintf(stderr, format+"\n", args...)
		return 1, false
	}
	switch cmd {
	case "sonic-cfggen -d --print-data":
		stdout.Write(s.configDB)
		return 0, false
	case "sonic-db-dump -n COUNTERS_DB -k 'COUNTERS*'":
		fmt.Fprint(stdout, s.sonicCountersDump())
		return 0, false
	case "sudo -n config save -y":
		if s.faults.RefuseConfirm {
			return fail("Error: the configuration could not be saved")
		}
		s.saved = append([]byte(nil), s.configDB...)
		fmt.Fprintln(stdout, "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json")
		return 0, false
	case "sudo -n config reload -y":
		if _, err := decodeConfigDB(s.saved); err != nil {
			return fail("Error: %s: %v", sonicConfigDB, err)
		}
		s.configDB = append([]byte(nil), s.saved...)
		s.reloads++
		fmt.Fprintln(stdout, "Running command: /usr/local/bin/sonic-cfggen -j /etc/sonic/config_db.json --write-to-db")
		return 0, false
	}
	if m := sonicRemove.FindStringSubmatch(cmd); m != nil {
		delete(s.files, m[1])
		return 0, false
	}
	if m := sonicCat.FindStringSubmatch(cmd); m != nil {
		b, ok := s.file(m[1])
		if !ok {
			return fail("cat: %s: No such file or directory", m[1])
		}
		stdout.Write(b)
		return 0, false
	}
	if m := sonicInstall.FindStringSubmatch(cmd); m != nil {
		b, ok := s.files[m[1]]
		if !ok {
			return fail("install: cannot stat '%s': No such file or directory", m[1])
		}
		s.put(m[2], b)
		return 0, false
	}
	if m := sonicMove.FindStringSubmatch(cmd); m != nil {
		b, ok := s.file(m[1])
		if !ok {
			return fail("mv: cannot stat '%s': No such file or directory", m[1])
		}
		delete(s.staged, m[1])
		s.put(m[2], b)
		return 0, false
	}
	if m := sonicCheckpoint.FindStringSubmatch(cmd); m != nil {
		s.checkpoints[m[1]] = append([]byte(nil), s.configDB...)
		fmt.Fprintln(stdout, "Checkpoint created successfully.")
		return 0, false
	}
	if m := sonicPatch.FindStringSubmatch(cmd); m != nil {
		return s.applyPatch(m[1], stdout, fail)
	}
	if m := sonicBreakout.FindStringSubmatch(cmd); m != nil {
		return s.breakout(m[1], m[2], stdout, fail)
	}
	if m := sonicRollback.FindStringSubmatch(cmd); m != nil {
		b, ok := s.checkpoints[m[1]]
		if !ok {
			return fail("Failed to rollback config\nError: Checkpoint '%s' does not exist", m[1])
		}
		s.configDB = append([]byte(nil), b...)
		fmt.Fprintln(stdout, "Config rolled back successfully.")
		return 0, false
	}
	if m := sonicDelete.FindStringSubmatch(cmd); m != nil {
		if _, ok := s.checkpoints[m[1]]; !ok {
			return fail("Failed to delete config checkpoint\nError: Checkpoint '%s' does not exist", m[1])
		}
		delete(s.checkpoints, m[1])
		fmt.Fprintln(stdout, "Checkpoint deleted successfully.")
		return 0, false
	}
	return fail("bash: %s: command not found", strings.Fields(cmd + " x")[0])
}

// file returns a file's content by its path.
func (s *SONiC) file(path string) ([]byte, bool) {
	if path == sonicConfigDB {
		return s.saved, true
	}
	if strings.HasPrefix(path, "/tmp/") {
		b, ok := s.files[path]
		return b, ok
	}
	b, ok := s.staged[path]
	return b, ok
}

func (s *SONiC) put(path string, b []byte) {
	b = append([]byte(nil), b...)
	if path == sonicConfigDB {
		s.saved = b
		return
	}
	s.staged[path] = b
}

// applyPatch is `config apply-patch FILE`.
func (s *SONiC) applyPatch(file string, stdout io.Writer, fail func(string, ...any) (int, bool)) (int, bool) {
	patch, ok := s.files[file]
	if !ok {
		return fail("Failed to apply patch due to: [Errno 2] No such file or directory: '%s'", file)
	}
	var ops []map[string]json.RawMessage
	if err := json.Unmarshal(patch, &ops); err != nil || !validPatchFormat(ops) {
		return fail("Failed to apply patch due to: Invalid patch format in file: %s", file)
	}
	for _, op := range ops {
		var path string
		_ = json.Unmarshal(op["path"], &path)
		if path == "/BUFFER_POOL" || strings.HasPrefix(path, "/BUFFER_POOL/") {
			return fail("Failed to apply patch due to: Modification of BUFFER_POOL table is illegal- validating function generic_config_updater.field_operation_validators.rdma_config_update_validator returned False")
		}
	}
	if s.faults.Reject != "" && bytes.Contains(patch, []byte(s.faults.Reject)) {
		return fail("Failed to apply patch due to: Given patch will produce invalid config. Error: %s is not valid", s.faults.Reject)
	}
	db, err := decodeConfigDB(s.configDB)
	if err != nil {
		return fail("Failed to apply patch due to: %v", err)
	}
	for _, op := range ops {
		if db, err = jsonPatchOp(db, op); err != nil {
			return fail("Failed to apply patch due to: %v", err)
		}
	}
	s.configDB = encodeConfigDB(db)
	if s.faults.HangupOnCommit {
		return 0, true
	}
	fmt.Fprintln(stdout, "Patch applied successfully.")
	return 0, false
}

// breakout is `config interface breakout PORT MODE -y`.
func (s *SONiC) breakout(port, mode string, stdout io.Writer, fail func(string, ...any) (int, bool)) (int, bool) {
	db, err := decodeConfigDB(s.configDB)
	if err != nil {
		return fail("%v", err)
	}
	table, _ := db.(map[string]any)["BREAKOUT_CFG"].(map[string]any)
	if len(table) == 0 {
		return fail("[ERROR] BREAKOUT_CFG table is NOT present in CONFIG DB\nAborted!")
	}
	row, ok := table[port].(map[string]any)
	if !ok {
		return fail("[ERROR] %s interface is NOT present in BREAKOUT_CFG table of CONFIG DB\nAborted!", port)
	}
	if s.faults.Reject != "" && strings.Contains(port+" "+mode, s.faults.Reject) {
		return fail("[ERROR] Target mode %s is not available for the port %s\nAborted!", mode, port)
	}
	if deps := portDependencies(db.(map[string]any), port); len(deps) > 0 {
		fmt.Fprintln(stdout, "Dependencies Exist. No further action will be taken")
		fmt.Fprintln(stdout, "*** Printing dependencies ***")
		for _, d := range deps {
			fmt.Fprintln(stdout, d)
		}
		return 1, false
	}
	row["brkout_mode"] = mode
	s.configDB = encodeConfigDB(db)
	fmt.Fprintln(stdout, "Breakout process got successfully completed.")
	fmt.Fprintln(stdout, "Please note loaded setting will be lost after system reboot. To preserve setting, run `config save`.")
	return 0, false
}

// portDependencies are the rows and fields of CONFIG_DB that name port,
// sorted: what dynamic port breakout finds through the YANG leafrefs of
// the QoS and buffer tables.
func portDependencies(db map[string]any, port string) []string {
	var out []string
	for _, table := range []string{"PORT_QOS_MAP", "PFC_WD", "BUFFER_PG", "BUFFER_QUEUE", "QUEUE"} {
		rows, _ := db[table].(map[string]any)
		for key := range rows {
			if p, _, _ := strings.Cut(key, "|"); p == port {
				out = append(out, table+"|"+key)
			}
		}
	}
	cables, _ := db["CABLE_LENGTH"].(map[string]any)
	for key, row := range cables {
		if fields, _ := row.(map[string]any); fields[port] != nil {
			out = append(out, "CABLE_LENGTH|"+key+"|"+port)
		}
	}
	slices.Sort(out)
	return out
}

// validPatchFormat is GCU's validate_patch_format: a list of objects each
// with an op and a path, the op one of RFC 6902's.
func validPatchFormat(ops []map[string]json.RawMessage) bool {
	if ops == nil {
		return false
	}
	for _, op := range ops {
		var name string
		if op == nil || op["path"] == nil || json.Unmarshal(op["op"], &name) != nil {
			return false
		}
		if !slices.Contains([]string{"add", "remove", "replace", "move", "copy", "test"}, name) {
			return false
		}
	}
	return true
}

func decodeConfigDB(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("CONFIG_DB is not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("CONFIG_DB is not a JSON object")
	}
	return v, nil
}

// encodeConfigDB prints CONFIG_DB as sonic-cfggen --print-data does:
// keys sorted, four spaces of indentation.
func encodeConfigDB(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	_ = enc.Encode(v)
	return b.Bytes()
}

// jsonPatchOp applies one RFC 6902 operation (add, replace, remove) to
// doc, with python-jsonpatch's words for a path that is not there.
func jsonPatchOp(doc any, op map[string]json.RawMessage) (any, error) {
	var name, path string
	_ = json.Unmarshal(op["op"], &name)
	if err := json.Unmarshal(op["path"], &path); err != nil {
		return nil, fmt.Errorf("Invalid JSON pointer: %s", op["path"])
	}
	var val any
	if name == "add" || name == "replace" {
		raw, ok := op["value"]
		if !ok {
			return nil, fmt.Errorf("The operation does not contain a 'value' member")
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
	} else if name != "remove" {
		return nil, fmt.Errorf("Unknown operation %q", name)
	}
	if path == "" {
		if name == "remove" {
			return nil, fmt.Errorf("can't remove the whole document")
		}
		return val, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("Location must start with /")
	}
	toks := strings.Split(path[1:], "/")
	for i := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(toks[i], "~1", "/"), "~0", "~")
	}
	// walk returns the node it was given, changed: an array that grows
	// or shrinks is a new slice its parent must hold instead.
	var walk func(node any, toks []string) (any, error)
	walk = func(node any, toks []string) (any, error) {
		t := toks[0]
		last := len(toks) == 1
		switch n := node.(type) {
		case map[string]any:
			c, ok := n[t]
			if !last {
				if !ok {
					return nil, fmt.Errorf("member '%s' not found in %s", t, shortJSON(n))
				}
				c, err := walk(c, toks[1:])
				if err != nil {
					return nil, err
				}
				n[t] = c
				return n, nil
			}
			switch {
			case name == "add":
				n[t] = val
			case !ok:
				return nil, fmt.Errorf("can't %s a non-existent object '%s'", name, t)
			case name == "replace":
				n[t] = val
			default:
				delete(n, t)
			}
			return n, nil
		case []any:
			i, err := strconv.Atoi(t)
			if t == "-" && last && name == "add" {
				i, err = len(n), nil
			}
			if err != nil || i < 0 || i > len(n) || (i == len(n) && !(last && name == "add")) {
				return nil, fmt.Errorf("can't %s outside of list", name)
			}
			if !last {
				c, err := walk(n[i], toks[1:])
				if err != nil {
					return nil, err
				}
				n[i] = c
				return n, nil
			}
			switch name {
			case "add":
				return slices.Insert(n, i, val), nil
			case "replace":
				n[i] = val
				return n, nil
			}
			return slices.Delete(n, i, i+1), nil
		}
		return nil, fmt.Errorf("Document '%v' does not support indexing, must be mapping/sequence or support __getitem__", node)
	}
	return walk(doc, toks)
}

// shortJSON is a value as an error shows it, cut short.
func shortJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// Shell refuses an interactive login: the emulator runs commands only.
func (s *SONiC) Shell(t *Term) {
	t.Print("this emulated SONiC switch runs commands given with the connection only\n")
}
