package sonic

import (
	"maps"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// breakoutPorts are the rendered ports of the parents the breakouts
// change: the ports `config interface breakout` deletes and creates anew.
func breakoutPorts(d *ir.Device, bs []Breakout) map[string]bool {
	if d == nil || d.Switch == nil || len(bs) == 0 {
		return nil
	}
	parents := map[string]bool{}
	for _, b := range bs {
		parents[b.Port] = true
	}
	out := map[string]bool{}
	for _, p := range d.Switch.Ports {
		if p.SKU != nil && parents[p.SKU.BreakoutParent] {
			out[p.Name] = true
		}
	}
	return out
}

// dependsOn reports whether e is a field of a row that names one of
// ports, as the YANG leafrefs that dynamic port breakout follows do: a
// port's QoS map, priority groups, buffer queues, queues and watchdog
// rows, and its field of the cable-length list.
func dependsOn(e entry, ports map[string]bool) bool {
	switch e.table {
	case "PORT_QOS_MAP", "PFC_WD":
		return ports[e.key]
	case "BUFFER_PG", "BUFFER_QUEUE", "QUEUE":
		port, _, _ := strings.Cut(e.key, "|")
		return ports[port]
	case "CABLE_LENGTH":
		return ports[e.field]
	}
	return false
}

// breakoutPrep returns the remediation that removes rocefab's rows and
// fields naming the ports the breakouts delete, and the running state as
// it is after the breakouts: without them, and without the owned PORT
// fields of those ports, which the breakout creates anew. Nil when no
// owned row names such a port.
func breakoutPrep(d *ir.Device, have *State, bs []Breakout, apply ir.SONiCApply) (Remediation, *State) {
	ports := breakoutPorts(d, bs)
	if !slices.ContainsFunc(have.es, func(e entry) bool { return dependsOn(e, ports) }) {
		return Remediation{}, nil
	}
	kept := slices.DeleteFunc(slices.Clone(have.es), func(e entry) bool { return dependsOn(e, ports) })
	prep := remediation(have, &State{es: kept}, apply)
	after := &State{
		es:        slices.DeleteFunc(kept, func(e entry) bool { return e.table == "PORT" && ports[e.key] }),
		parsed:    true,
		tables:    maps.Clone(have.tables),
		tableRows: maps.Clone(have.tableRows),
		rowsOf:    maps.Clone(have.rowsOf),
	}
	if after.tables == nil {
		after.tables = map[string]bool{}
	}
	if after.tableRows == nil {
		after.tableRows = map[string]int{}
	}
	if after.rowsOf == nil {
		after.rowsOf = map[string][]rowInfo{}
	}
	if !have.parsed {
		// A state not read from a file: its rows are its entries'.
		for i, e := range have.es {
			if i == 0 || e.key != have.es[i-1].key || e.table != have.es[i-1].table {
				after.tableRows[e.table]++
				after.tables[e.table] = true
				after.rowsOf[e.table] = append(after.rowsOf[e.table], rowInfo{key: e.key})
			}
		}
	}
	// What the removals took away whole no longer exists.
	for _, op := range append(slices.Clone(prep.ApplyPatch), prep.ConfigReload...) {
		parts, err := unpointer(op.Path)
		if err != nil || op.Op != "remove" {
			continue
		}
		switch len(parts) {
		case 1:
			after.tables[parts[0]], after.tableRows[parts[0]], after.rowsOf[parts[0]] = false, 0, nil
		case 2:
			rows := after.rowsOf[parts[0]]
			if i := slices.IndexFunc(rows, func(r rowInfo) bool { return r.key == parts[1] }); i >= 0 {
				after.rowsOf[parts[0]] = slices.Delete(slices.Clone(rows), i, i+1)
				after.tableRows[parts[0]]--
			}
		}
	}
	return prep, after
}
