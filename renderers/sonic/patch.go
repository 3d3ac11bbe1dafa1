package sonic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// Apply methods of a change (ir.SONiCApply Method, from the catalog's
// sonic_apply.json and the release's GCU validators).
const (
	methodPatch    = "apply-patch"
	methodReload   = "config-reload"
	methodBreakout = "breakout"
)

// Remediation is what makes a SONiC switch match its desired state, run in
// this order:
//
//  0. BreakoutPrep (apply-patch) or BreakoutPrepReload (config reload, when
//     the release refuses one of them through GCU): the removal of
//     rocefab's rows that name a port a breakout deletes (PORT_QOS_MAP,
//     BUFFER_PG, BUFFER_QUEUE, QUEUE, PFC_WD rows, CABLE_LENGTH fields),
//     since `config interface breakout` without -f refuses while any row
//     depends on such a port (sonic-utilities config/main.py
//     breakout_Ports: "Dependencies Exist. No further action will be
//     taken"). The parts below add them back for the ports the breakout
//     creates; a foreign row that names the port still blocks the
//     breakout, which then fails and is rolled back.
//  1. Breakout: `config interface breakout <port> <mode>` for each entry
//     (sonic-utilities config/main.py, dynamic port breakout), which
//     creates the ports of the mode.
//  2. ApplyPatch: an RFC 6902 JSON patch for `config apply-patch` (GCU),
//     its paths /TABLE/key/field with keys escaped as RFC 6901 says.
//  3. ConfigReload: an RFC 6902 JSON patch the switch's release refuses
//     through GCU (its field validators or the patch sorter: ir.SONiCApply,
//     compiler/platforms sonic_apply.json): `config save -y`, the patch
//     applied to /etc/sonic/config_db.json, then `config reload -y`. When
//     any change needs it, every change but the breakouts is in this part,
//     since a patch applied first could leave a profile naming a pool that
//     only the reload creates.
//
// It is the JSON content of the renderers.Remediation Diff returns.
type Remediation struct {
	BreakoutPrep       []PatchOp  `json:"breakout-prep,omitempty"`
	BreakoutPrepReload []PatchOp  `json:"breakout-prep-reload,omitempty"`
	Breakout           []Breakout `json:"breakout,omitempty"`
	ApplyPatch         []PatchOp  `json:"apply-patch,omitempty"`
	ConfigReload       []PatchOp  `json:"config-reload,omitempty"`
}

// Breakout is one `config interface breakout`.
type Breakout struct {
	Port string `json:"port"`
	Mode string `json:"mode"`
}

// PatchOp is one RFC 6902 operation: add, replace or remove. Value is a
// JSON string for a field, or an object for a whole row or table.
type PatchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// applyOrder is the order tables are added and changed in: what others
// refer to first (ports, pools, profiles, maps, schedulers, WRED profiles),
// then what refers to them, the way the YANG models' leafrefs run
// (sonic-buffer-pg.yang profile → sonic-buffer-profile.yang pool →
// sonic-buffer-pool.yang; sonic-queue.yang scheduler and wred_profile;
// sonic-port-qos-map.yang maps). Removals run in the reverse order. GCU
// sorts a patch itself (generic_config_updater/patch_sorter.py); the
// order also holds for the config-reload part, which is applied to a file
// as it stands.
var applyOrder = []string{
	"PORT", "BUFFER_POOL", "BUFFER_PROFILE",
	"DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE",
	"SCHEDULER", "WRED_PROFILE", "CABLE_LENGTH", "PORT_QOS_MAP", "BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PFC_WD",
}

func tableRank(t string) int {
	if i := slices.Index(applyOrder, t); i >= 0 {
		return i
	}
	return len(applyOrder)
}

// Diff returns the changes that make running into desired, each with its
// disruption (the catalog element's, the table's from sonic_apply.json
// where that is worse, a port flap for a speed or lane change, a reboot's
// for one a config reload carries) and, for a switch the compiler gave
// its release's rules, the method that applies it; and the remediation as
// a JSON [Remediation]. A running state of nil is a switch with no
// config_db.json.
func (Renderer) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	want, ok := desired.(*State)
	if !ok || want == nil {
		return nil, renderers.Remediation{}, fmt.Errorf("sonic: the desired state is %T, not a SONiC desired state", desired)
	}
	have := &State{parsed: true}
	if running != nil {
		h, ok := running.(*State)
		if !ok || h == nil {
			return nil, renderers.Remediation{}, fmt.Errorf("sonic: the running state is %T, not a SONiC running state", running)
		}
		have = h
	}
	var ds renderers.Disruptions
	var apply ir.SONiCApply
	if d != nil {
		ds, apply = d.Disruption[ir.PlatformSONiC], d.Apply
	}
	changes := diffEntries(have.es, want.es, ds)
	if len(changes) == 0 {
		return nil, renderers.Remediation{}, nil
	}
	rem := remediation(have, want, apply)
	if prep, after := breakoutPrep(d, have, rem.Breakout, apply); after != nil {
		bs := rem.Breakout
		rem = remediation(after, want, apply)
		rem.Breakout, rem.BreakoutPrep, rem.BreakoutPrepReload = bs, prep.ApplyPatch, prep.ConfigReload
	}
	reload := len(rem.ConfigReload) > 0 || len(rem.BreakoutPrepReload) > 0
	// A change takes the worse of its element's class and its table's. A
	// config reload stops and restarts sonic.target, swss and syncd with
	// it (sonic-utilities config/main.py reload), so every change it
	// carries is a reboot's disruption.
	for i, c := range changes {
		table, _, _ := strings.Cut(c.Path, "|")
		dis := renderers.Worst(c.Disruption, tableDisruption(apply, table), floorDisruption.Of(c.Kind))
		method := methodPatch
		switch {
		case table == tableBreakout:
			method = methodBreakout
			if reload {
				dis = renderers.Reboot
			}
		case reload:
			method = methodReload
			dis = renderers.Reboot
		}
		changes[i].Disruption = dis
		if apply != nil {
			changes[i].Method = method
		}
	}
	return changes, renderers.Remediation{Format: renderers.JSON, Content: rem.encode()}, nil
}

// encode is rem as encoding/json prints it with two-space indentation and
// no HTML escaping, written directly: compact first, then indented the
// way json.Indent does, since every value is a string or an object.
func (rem Remediation) encode() []byte {
	n := 64
	for _, ops := range [][]PatchOp{rem.BreakoutPrep, rem.BreakoutPrepReload, rem.ApplyPatch, rem.ConfigReload} {
		for _, op := range ops {
			n += len(op.Path) + len(op.Value) + 40
		}
	}
	b := make([]byte, 0, n+48*len(rem.Breakout))
	b = append(b, '{')
	comma := false
	member := func(name string) {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(appendString(b, name), ':')
	}
	ops := func(name string, ops []PatchOp) {
		if len(ops) == 0 {
			return
		}
		member(name)
		b = append(b, '[')
		for i, op := range ops {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"op":`...)
			b = appendString(b, op.Op)
			b = append(b, `,"path":`...)
			b = appendString(b, op.Path)
			if len(op.Value) > 0 {
				b = append(append(b, `,"value":`...), op.Value...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	ops("breakout-prep", rem.BreakoutPrep)
	ops("breakout-prep-reload", rem.BreakoutPrepReload)
	if len(rem.Breakout) > 0 {
		member("breakout")
		b = append(b, '[')
		for i, br := range rem.Breakout {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"port":`...)
			b = appendString(b, br.Port)
			b = append(b, `,"mode":`...)
			b = append(appendString(b, br.Mode), '}')
		}
		b = append(b, ']')
	}
	ops("apply-patch", rem.ApplyPatch)
	ops("config-reload", rem.ConfigReload)
	b = append(b, '}')
	return appendIndented(make([]byte, 0, 2*len(b)), b)
}

// appendIndented appends compact JSON src indented by two spaces per
// level, an empty object or list kept as {} or [], and a final newline:
// what json.Encoder with SetIndent("", "  ") prints.
func appendIndented(b, src []byte) []byte {
	depth := 0
	newline := func() {
		b = append(b, '\n')
		for range depth {
			b = append(b, "  "...)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			b = append(b, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				b = append(b, c, src[i+1])
				i++
				continue
			}
			b = append(b, c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			b = append(b, c)
		case ',':
			b = append(b, c)
			newline()
		case ':':
			b = append(b, ':', ' ')
		default:
			b = append(b, c)
		}
	}
	return append(b, '\n')
}

// diffEntries is renderers.DiffElements over two states' entries: one
// merge walk of the lists, both sorted by table, key and field, instead of
// flattening both whole and matching paths through maps. Only the changes
// get a path; they are then put in path order, which differs from entry
// order where a table name is a prefix of another ("PORT|" sorts after
// "PORT_QOS_MAP|").
func diffEntries(have, want []entry, ds renderers.Disruptions) []renderers.Change {
	var ds0 []entryDiff
	i, j := 0, 0
	for i < len(have) || j < len(want) {
		c := 1
		switch {
		case i == len(have):
		case j == len(want):
			c = -1
		default:
			c = compareEntry(have[i], want[j])
		}
		switch {
		case c < 0:
			ds0 = append(ds0, entryDiff{i, -1})
			i++
		case c > 0:
			ds0 = append(ds0, entryDiff{-1, j})
			j++
		default:
			if have[i].value != want[j].value {
				ds0 = append(ds0, entryDiff{i, j})
			}
			i, j = i+1, j+1
		}
	}
	if len(ds0) == 0 {
		return nil
	}
	// All paths in one string and all values in one array: a change's
	// strings and pointers are slices of them, three allocations for the
	// lot rather than three per change.
	n := 0
	for _, d := range ds0 {
		e := d.of(have, want)
		n += len(e.table) + len(e.key) + len(e.field) + 2
	}
	buf := make([]byte, 0, n)
	for _, d := range ds0 {
		e := d.of(have, want)
		buf = append(append(append(append(append(buf, e.table...), '|'), e.key...), '|'), e.field...)
	}
	paths := string(buf)
	vals := make([]string, 2*len(ds0))
	out := make([]renderers.Change, len(ds0))
	at := 0
	for k, d := range ds0 {
		var c renderers.Change
		e := d.of(have, want)
		l := len(e.table) + len(e.key) + len(e.field) + 2
		c.Path, at = paths[at:at+l], at+l
		if d.h >= 0 {
			vals[2*k] = have[d.h].value
			c.Before = &vals[2*k]
		}
		if d.w >= 0 {
			vals[2*k+1] = want[d.w].value
			c.After = &vals[2*k+1]
		}
		c.Kind = kindOf(e.table, e.field)
		c.Disruption = ds.Of(c.Kind)
		out[k] = c
	}
	slices.SortFunc(out, func(a, b renderers.Change) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// entryDiff is one difference: indices into the running and desired
// entries, -1 for a side without the field.
type entryDiff struct{ h, w int }

// of is the entry that names the field: the desired one, else the
// running one.
func (d entryDiff) of(have, want []entry) entry {
	if d.w >= 0 {
		return want[d.w]
	}
	return have[d.h]
}

// tableDisruption is the class the switch's rules give a patch of table:
// none recorded for a switch the compiler did not annotate.
func tableDisruption(apply ir.SONiCApply, table string) renderers.Disruption {
	if apply == nil {
		return renderers.Hitless
	}
	d, err := renderers.ParseDisruption(apply.Disruption(table))
	if err != nil {
		return renderers.Reboot
	}
	return d
}

// opMethod is how the switch's release applies an operation at path
// (table, row, field) whose object value has members: apply-patch for a
// switch the compiler did not annotate.
func opMethod(apply ir.SONiCApply, op string, members []string, path ...string) string {
	if apply == nil {
		return methodPatch
	}
	return apply.Method(op, path, members)
}

// rowOp is one change of a row: its fields to set and to remove.
type rowOp struct {
	row    tk
	set    [][2]string // field, value: added or replaced
	add    []bool      // set[i] is a field the row lacks
	drop   []string
	exists bool // the row is in the running configuration
	keep   bool // after the change the row has fields left
}

// remediation computes the operations that make have into want, each
// placed by the method the switch's release applies it with.
func remediation(have, want *State, apply ir.SONiCApply) Remediation {
	var rem Remediation
	// The running rows per table: those parsed, or, for a state that was
	// not read from a file, those with owned fields.
	tableRows := have.tableRows
	if !have.parsed {
		tableRows = map[string]int{}
		for i, e := range have.es {
			if i == 0 || e.key != have.es[i-1].key || e.table != have.es[i-1].table {
				tableRows[e.table]++
			}
		}
	}
	// Rows that change, by table: both sides are sorted by table, key and
	// field, so one merge walk finds them.
	// cur is reused for every row; only a row that changes is copied out,
	// so the rows that stay as they are cost nothing.
	byTable := map[string][]*rowOp{}
	cur, started := &rowOp{}, false
	hasWant, hasHave := false, false
	flush := func() {
		if !started || len(cur.set) == 0 && len(cur.drop) == 0 {
			return
		}
		done := *cur
		*cur = rowOp{}
		cur := &done
		r, ok := have.row(cur.row)
		cur.exists = hasHave || ok
		cur.keep = hasWant || r.foreign
		if cur.row.table == tableBreakout {
			for _, fv := range cur.set {
				if fv[0] == "brkout_mode" {
					rem.Breakout = append(rem.Breakout, Breakout{Port: cur.row.key, Mode: fv[1]})
				}
			}
			return
		}
		byTable[cur.row.table] = append(byTable[cur.row.table], cur)
	}
	row := func(e entry) {
		if !started || cur.row.table != e.table || cur.row.key != e.key {
			flush()
			*cur = rowOp{row: tk{e.table, e.key}}
			started, hasWant, hasHave = true, false, false
		}
	}
	hs, ws := have.es, want.es
	for len(hs) > 0 || len(ws) > 0 {
		var c int
		switch {
		case len(hs) == 0:
			c = 1
		case len(ws) == 0:
			c = -1
		default:
			c = compareEntry(hs[0], ws[0])
		}
		switch {
		case c < 0: // running only: removed
			row(hs[0])
			hasHave = true
			cur.drop = append(cur.drop, hs[0].field)
			hs = hs[1:]
		case c > 0: // desired only: added
			row(ws[0])
			hasWant = true
			cur.set = append(cur.set, [2]string{ws[0].field, ws[0].value})
			cur.add = append(cur.add, true)
			ws = ws[1:]
		default:
			row(ws[0])
			hasWant, hasHave = true, true
			if hs[0].value != ws[0].value {
				cur.set = append(cur.set, [2]string{ws[0].field, ws[0].value})
				cur.add = append(cur.add, false)
			}
			hs, ws = hs[1:], ws[1:]
		}
	}
	flush()
	names := make([]string, 0, len(byTable))
	for t := range byTable {
		names = append(names, t)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := tableRank(a) - tableRank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	type placed struct {
		op     PatchOp
		reload bool
	}
	var sets, drops []placed
	place := func(list *[]placed, op PatchOp, members []string, path ...string) {
		*list = append(*list, placed{op, opMethod(apply, op.Op, members, path...) == methodReload})
	}
	for _, t := range names {
		ops := byTable[t]
		tableExists := have.tables[t] || tableRows[t] > 0
		if !tableExists {
			// A table the switch lacks is added whole.
			// Rows are in key order, the order encoding/json gives a
			// map's keys.
			var val []byte
			var keys []string
			for _, o := range ops {
				if len(o.set) > 0 {
					if val == nil {
						val = append(val, '{')
					} else {
						val = append(val, ',')
					}
					val = appendFields(append(appendString(val, o.row.key), ':'), o.set)
					keys = append(keys, o.row.key)
				}
			}
			if val != nil {
				place(&sets, PatchOp{Op: "add", Path: pointer(t), Value: append(val, '}')}, keys, t)
			}
			continue
		}
		// The table keeps rows after the change unless every row that
		// exists is removed whole: then the table goes, since GCU refuses
		// a patch that leaves an empty table (generic_updater.py
		// PatchApplier.apply, EmptyTableError).
		gone := 0
		for _, o := range ops {
			if o.exists && !o.keep {
				gone++
			}
		}
		left := tableRows[t] > gone || slices.ContainsFunc(ops, func(o *rowOp) bool { return len(o.set) > 0 })
		if !left {
			place(&drops, PatchOp{Op: "remove", Path: pointer(t)}, nil, t)
			continue
		}
		for _, o := range ops {
			switch {
			case !o.exists:
				fields := make([]string, len(o.set))
				for i, fv := range o.set {
					fields[i] = fv[0]
				}
				place(&sets, PatchOp{Op: "add", Path: pointer(t, o.row.key), Value: appendFields(nil, o.set)}, fields, t, o.row.key)
			case !o.keep:
				place(&drops, PatchOp{Op: "remove", Path: pointer(t, o.row.key)}, nil, t, o.row.key)
			default:
				for i, fv := range o.set {
					op := "replace"
					if o.add[i] {
						op = "add"
					}
					place(&sets, PatchOp{Op: op, Path: pointer(t, o.row.key, fv[0]), Value: stringJSON(fv[1])}, nil, t, o.row.key, fv[0])
				}
				for _, f := range o.drop {
					place(&drops, PatchOp{Op: "remove", Path: pointer(t, o.row.key, f)}, nil, t, o.row.key, f)
				}
			}
		}
	}
	// Removals after additions, referrers first.
	slices.Reverse(drops)
	all := append(sets, drops...)
	// When any operation needs a config reload, every one goes into it:
	// a patch applied first could leave a row naming one only the reload
	// creates, and GCU refuses such a patch.
	reload := slices.ContainsFunc(all, func(p placed) bool { return p.reload })
	for _, p := range all {
		if reload {
			rem.ConfigReload = append(rem.ConfigReload, p.op)
		} else {
			rem.ApplyPatch = append(rem.ApplyPatch, p.op)
		}
	}
	return rem
}

// appendFields appends a row's fields as a JSON object; set is in field
// order, as the entries are, which is the order encoding/json gives a
// map's keys.
func appendFields(b []byte, set [][2]string) []byte {
	b = append(b, '{')
	for i, fv := range set {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, fv[0]), ':')
		b = appendString(b, fv[1])
	}
	return append(b, '}')
}

// stringJSON is s as a JSON value.
func stringJSON(s string) json.RawMessage {
	return appendString(make([]byte, 0, len(s)+2), s)
}

// pointer is the RFC 6901 JSON pointer of a table, row or field: '~' is
// written ~0 and '/' ~1.
func pointer(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, '/')
		if !strings.ContainsAny(p, "~/") {
			b = append(b, p...)
			continue
		}
		b = append(b, pointerEscaper.Replace(p)...)
	}
	return string(b)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// unpointer splits an RFC 6901 pointer into its reference tokens.
func unpointer(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("path %q is not a JSON pointer of a table, row or field", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		// ~1 first, then ~0 (RFC 6901 section 4).
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(s, "~0", ""), "~1", ""), "~") {
			return nil, fmt.Errorf("path %q: '~' not followed by 0 or 1", p)
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func mustJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Strings and maps of strings always encode.
		return json.RawMessage(`null`)
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// Apply applies a remediation from [Renderer.Diff] to a running
// config_db.json the way the switch would, in the remediation's order:
// each breakout sets BREAKOUT_CFG|<port> brkout_mode (the state
// `config interface breakout` leaves in CONFIG_DB), then the apply-patch
// and config-reload operations. It edits the text: every table, row and
// field no operation names keeps its bytes, and an object an operation
// changes keeps its members' order and the document's indentation. With no
// config_db.json among running it creates one beside the switch's other
// files.
func (Renderer) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	if len(bytes.TrimSpace(rem.Content)) == 0 {
		return out, nil
	}
	if rem.Format != renderers.JSON {
		return nil, fmt.Errorf("sonic: a remediation in %q, not SONiC's JSON", rem.Format)
	}
	var r Remediation
	if err := renderers.DecodeRemediation(rem.Content, &r); err != nil {
		return nil, fmt.Errorf("sonic: the remediation: %w", err)
	}
	at, err := renderers.RunningFile(running, FileName)
	if err != nil {
		return nil, fmt.Errorf("sonic: %w", err)
	}
	src := []byte("{}\n")
	if at >= 0 {
		src = running[at].Content
	} else {
		out = append(out, renderers.Artifact{Path: renderers.NewArtifactPath(running, FileName), Format: renderers.JSON})
		at = len(out) - 1
	}
	doc, err := parseDocument(src)
	if err != nil {
		return nil, fmt.Errorf("sonic: %s: %w", out[at].Path, err)
	}
	ops := slices.Concat(r.BreakoutPrep, r.BreakoutPrepReload)
	for _, b := range r.Breakout {
		ops = append(ops, PatchOp{Op: "add", Path: pointer(tableBreakout, b.Port, "brkout_mode"), Value: mustJSON(b.Mode)})
	}
	ops = append(append(ops, r.ApplyPatch...), r.ConfigReload...)
	for _, op := range ops {
		// The switch's own guard, without its device: no table rocefab
		// does not write.
		if parts, err := unpointer(op.Path); err == nil && len(parts) > 0 && !ownedTables[parts[0]] {
			return nil, fmt.Errorf("sonic: %s: %s %s: table %s: outside the owned scope, which a remediation never leaves", out[at].Path, op.Op, op.Path, parts[0])
		}
		if err := doc.apply(op); err != nil {
			return nil, fmt.Errorf("sonic: %s: %s %s: %w", out[at].Path, op.Op, op.Path, err)
		}
	}
	out[at].Content = doc.bytes()
	return out, nil
}

// apply applies one operation to the document. A breakout's row and
// table are created as needed: `config interface breakout` makes them.
func (d *document) apply(op PatchOp) error {
	parts, err := unpointer(op.Path)
	if err != nil {
		return err
	}
	if len(parts) < 1 || len(parts) > 3 {
		return fmt.Errorf("CONFIG_DB paths name a table, a row or a field")
	}
	o := d.root
	for i, name := range parts[:len(parts)-1] {
		_, m := o.get(name)
		if m == nil {
			if parts[0] != tableBreakout {
				return fmt.Errorf("no %s", strings.Join(parts[:i+1], "|"))
			}
			o.put(name, nil, &object{touched: true})
			_, m = o.get(name)
		}
		c, err := open(m)
		if err != nil {
			return err
		}
		o.touched = true
		o = c
	}
	last := parts[len(parts)-1]
	switch op.Op {
	case "remove":
		if !o.remove(last) {
			return fmt.Errorf("nothing to remove")
		}
		return nil
	case "add", "replace":
		if _, m := o.get(last); m == nil && op.Op == "replace" {
			return fmt.Errorf("nothing to replace")
		}
		var v any
		if err := json.Unmarshal(op.Value, &v); err != nil {
			return fmt.Errorf("value: %w", err)
		}
		switch x := v.(type) {
		case string:
			o.put(last, appendString(nil, x), nil)
		case map[string]any:
			c, err := newObject(x)
			if err != nil {
				return err
			}
			o.put(last, nil, c)
		default:
			return fmt.Errorf("CONFIG_DB holds strings and objects of strings, not %T", v)
		}
		return nil
	}
	return fmt.Errorf("operation %q: a remediation adds, replaces and removes", op.Op)
}
