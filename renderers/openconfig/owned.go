package openconfig

import (
	"slices"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Operation is how a gNMI SetRequest carries an owned path (gNMI
// specification 3.4: a replace makes the subtree exactly the given value,
// deleting what it omits; an update merges the value in and deletes
// nothing).
type Operation string

// The two operations rocefab uses.
const (
	Replace Operation = "replace"
	Update  Operation = "update"
)

// OwnedPath is one path of a switch's OpenConfig tree that rocefab writes,
// and how. Path is a gNMI path in its string form; "*" stands for every
// port of the switch.
type OwnedPath struct {
	Path string
	Op   Operation
}

// Owned is the part of a switch's OpenConfig tree that openconfig.json
// describes and that a push may change; everything else on the device is
// not rocefab's and is never written or deleted.
//
// /qos is replaced whole: the fabric's QoS policy (queues, forwarding
// groups, classifiers, schedulers, ECN profiles and their binding to
// ports) is rocefab's alone, and a replace removes a stale classifier term
// or queue that an update would leave behind.
//
// /interfaces is never replaced: a replace there deletes every interface
// the artifact does not list, with their IP subinterfaces, loopbacks and
// the management port (gNMI specification 3.4.4, "Modes of Update:
// Replace versus Update"). rocefab owns a few leaves of each fabric port
// and updates exactly those: its MTU, its description and its Ethernet
// speed and 802.3x flow control. The interface's name and type are in the
// artifact because OpenConfig requires them to identify the interface;
// they are sent with the update and never change an existing port.
var Owned = []OwnedPath{
	{Path: "/qos", Op: Replace},
	{Path: "/interfaces/interface[name=*]/config/mtu", Op: Update},
	{Path: "/interfaces/interface[name=*]/config/description", Op: Update},
	{Path: "/interfaces/interface[name=*]/ethernet/config/port-speed", Op: Update},
	{Path: "/interfaces/interface[name=*]/ethernet/config/enable-flow-control", Op: Update},
}

// OwnedPaths expands [Owned] for one switch: /qos, then each owned leaf of
// each of its ports, ports in the order the artifact lists them. It is nil
// for a device that gets no OpenConfig artifact.
func OwnedPaths(d *ir.Device) []OwnedPath {
	if d == nil || d.Switch == nil {
		return nil
	}
	names := make([]string, 0, len(d.Switch.Ports))
	for _, p := range d.Switch.Ports {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var out []OwnedPath
	for _, o := range Owned {
		if o.Op == Replace {
			out = append(out, o)
		}
	}
	for _, n := range names {
		for _, o := range Owned {
			if o.Op == Update {
				out = append(out, OwnedPath{Path: replaceStar(o.Path, n), Op: o.Op})
			}
		}
	}
	return out
}

func replaceStar(path, name string) string {
	const star = "[name=*]"
	for i := 0; i+len(star) <= len(path); i++ {
		if path[i:i+len(star)] == star {
			return path[:i] + "[name=" + name + "]" + path[i+len(star):]
		}
	}
	return path
}
