package schema

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/rocefab/rocefab/compiler/diag"
)

// checkRenderable holds the schema rules that come from what every
// platform's configuration can hold: values the CUE types let through but
// no switch or NIC accepts. Each was a build that failed after a clean
// lint; it is a finding at the field instead.
func (in *Intent) checkRenderable() diag.List {
	var ds diag.List
	f := &in.Fabric
	add := func(pos diag.Pos, format string, args ...any) { ds = append(ds, schemaDiag(pos, format, args...)) }

	// Every DSCP no class lists goes to the default class, or, without
	// one, to priority 0: some class must serve it, or the switches map
	// traffic to a queue that does not exist.
	if len(f.Classes) > 0 {
		def, zero := false, false
		for _, c := range f.Classes {
			def = def || c.Default
			zero = zero || c.Priority == 0
		}
		if !def && !zero {
			add(in.Pos("classes"), "classes: no class has default: true and none has priority 0: the DSCPs no class lists would go to priority 0, which no class serves; mark one class default: true")
		}
	}

	// One netdev and one RDMA device per rail: a port listed twice would
	// carry two rails.
	for _, l := range []struct {
		field string
		list  []string
	}{{"ports", f.Hosts.NIC.Ports}, {"hca", f.Hosts.NCCL.HCA}} {
		seen := map[string]int{}
		for i, v := range l.list {
			if j, dup := seen[v]; dup {
				parent := "nic"
				if l.field == "hca" {
					parent = "nccl"
				}
				add(in.Pos("hosts", parent, l.field, strconv.Itoa(i)), "hosts.%s.%s: %q is listed twice (elements %d and %d): list one per rail", parent, l.field, v, j, i)
				continue
			}
			seen[v] = i
		}
	}

	// The renderers write the watchdog's times in whole milliseconds, and
	// EOS's refuses 0: a time below 1 ms would be rendered as 0.
	for _, t := range []struct {
		field string
		d     Duration
	}{{"detect", f.PFC.Watchdog.Detect}, {"restore", f.PFC.Watchdog.Restore}} {
		if t.d.Raw != "" && t.d.D < time.Millisecond {
			add(in.Pos("pfc", "watchdog", t.field), "pfc.watchdog.%s: %q: want at least 1ms: platforms count the watchdog in milliseconds", t.field, t.d.Raw)
		}
	}

	// An ECN threshold of zero marks every packet, and the EOS and NX-OS
	// renderers refuse it: their thresholds start at 1 byte.
	for _, name := range slices.Sorted(maps.Keys(f.Classes)) {
		e := f.Classes[name].ECN
		if e == nil || !e.Enabled {
			continue
		}
		for _, t := range []struct {
			field string
			s     Size
		}{{"min", e.Min}, {"max", e.Max}} {
			if t.s.Raw != "" && t.s.Bytes == 0 && t.s.Cells == 0 {
				add(in.Pos("classes", name, "ecn", t.field), "classes.%s.ecn.%s: %q: want at least 1 byte", name, t.field, t.s.Raw)
			}
		}
	}
	return ds
}
