package sonic

import (
	"encoding/json"
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// CheckScope refuses a remediation with a breakout or a JSON-patch
// operation outside switch d's owned scope (the rules of
// docs/ownership.md, as Parse reads them), reading the remediation alone
// (renderers.ScopeChecker): `remove /BGP_NEIGHBOR` or `replace
// /DEVICE_METADATA/localhost/hostname` never reach the switch. A row or
// table an operation adds must hold owned fields only; a row it removes
// must be one rocefab owns (a port's row never is), and a table it
// removes one of the tables rocefab writes.
func (Renderer) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	if ok, err := renderers.ScopeInput("sonic", d, rem, renderers.JSON, "SONiC's patch and breakouts"); !ok {
		return err
	}
	var r Remediation
	if err := renderers.DecodeRemediation(rem.Content, &r); err != nil {
		return fmt.Errorf("sonic: %s: the remediation: %w", d.Name, err)
	}
	sc, err := scopeFor(d)
	if err != nil {
		return err
	}
	outside := func(what string) error { return renderers.OutsideScope("sonic", d, what) }
	for _, b := range r.Breakout {
		if !sc.owns(tableBreakout, b.Port, "brkout_mode") {
			return outside(fmt.Sprintf("breakout of %s to %s", b.Port, b.Mode))
		}
	}
	for i, op := range append(append([]PatchOp(nil), r.ApplyPatch...), r.ConfigReload...) {
		if err := sc.checkOp(op); err != nil {
			return outside(fmt.Sprintf("operation %d (%s %s): %v", i+1, op.Op, op.Path, err))
		}
	}
	return nil
}

// checkOp says why op reaches outside the scope, nil when it does not.
func (s *scope) checkOp(op PatchOp) error {
	parts, err := unpointer(op.Path)
	if err != nil {
		return err
	}
	switch op.Op {
	case "add", "replace":
	case "remove":
		return s.checkRemove(parts)
	default:
		return fmt.Errorf("operation %q: only add, replace and remove are pushed", op.Op)
	}
	switch len(parts) {
	case 3:
		if !s.owns(parts[0], parts[1], parts[2]) {
			return fmt.Errorf("field %s of %s|%s is not rocefab's", parts[2], parts[0], parts[1])
		}
		return nil
	case 2:
		return s.checkRow(parts[0], parts[1], op.Value)
	case 1:
		var rows map[string]json.RawMessage
		if err := json.Unmarshal(op.Value, &rows); err != nil {
			return fmt.Errorf("a table's value must be an object of rows: %w", err)
		}
		for key, row := range rows {
			if err := s.checkRow(parts[0], key, row); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("CONFIG_DB paths name a table, a row or a field")
}

// checkRow checks a row's value: an object of owned fields.
func (s *scope) checkRow(table, key string, value json.RawMessage) error {
	var fields map[string]string
	if err := json.Unmarshal(value, &fields); err != nil {
		return fmt.Errorf("a row's value must be an object of string fields: %w", err)
	}
	for f := range fields {
		if !s.owns(table, key, f) {
			return fmt.Errorf("field %s of %s|%s is not rocefab's", f, table, key)
		}
	}
	return nil
}

// checkRemove checks the removal of a table, row or field.
func (s *scope) checkRemove(parts []string) error {
	table := parts[0]
	if table == "PORT" && len(parts) < 3 {
		return fmt.Errorf("removing a port or the PORT table is never rocefab's")
	}
	switch len(parts) {
	case 3:
		if !s.owns(table, parts[1], parts[2]) {
			return fmt.Errorf("field %s of %s|%s is not rocefab's", parts[2], table, parts[1])
		}
	case 2:
		if !s.ownsRow(table, parts[1]) {
			return fmt.Errorf("row %s|%s is not rocefab's", table, parts[1])
		}
	case 1:
		if !ownedTables[table] {
			return fmt.Errorf("table %s is not rocefab's", table)
		}
	default:
		return fmt.Errorf("CONFIG_DB paths name a table, a row or a field")
	}
	return nil
}

// ownsRow reports whether a whole row may be rocefab's to remove: a named
// object or map of its own, a rendered port's queue, priority group,
// QoS map or watchdog row, the cable length list. Whether the running row
// has foreign fields is for Diff, which keeps such rows.
func (s *scope) ownsRow(table, key string) bool {
	switch table {
	case "PORT_QOS_MAP":
		return key == "global" || s.ports[key]
	case "CABLE_LENGTH":
		return key == cableList
	case "PFC_WD":
		return s.ports[key]
	case "PORT":
		return false
	}
	return s.owns(table, key, "")
}
