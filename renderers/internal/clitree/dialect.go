package clitree

import (
	"regexp"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// Dialect is what differs between the CLI platforms that print a running
// configuration as an indented tree.
type Dialect struct {
	// Indent is the columns a platform indents each level by (EOS 3,
	// NX-OS 2), used for the lines this package writes.
	Indent int
	// Keys split single-valued commands into a key and a value, so that
	// `mtu 9000` becoming `mtu 9214` is one modified element, not a
	// removed and an added one. A line no rule matches is its own key.
	Keys []KeyRule
	// Kinds name the catalog element each owned line realises; the first
	// rule that matches an element's path wins.
	Kinds []KindRule
	// Negations are the `no ...` lines the device keeps in its running
	// configuration (EOS `no priority` in a queue, NX-OS `no shutdown` in
	// an interface): applying one leaves it in the configuration, where
	// applying any other `no` line only removes what it negates.
	Negations []Negation
	// Reset is the prefix of the command that returns a command to its
	// default without leaving a negation behind (EOS `default`), used to
	// remove a line whose `no` form is a kept negation; empty when the
	// platform has none, and then such a line is removed with `no`.
	Reset string
	// End is the line that closes the configuration (EOS prints `end`):
	// a new top-level section goes before it. Empty for none.
	End string
}

// KeyRule splits a command into key and value: a line that starts with
// Prefix (and, when Re is set, matches Re) has as value Re's first group,
// or without Re everything after Prefix.
type KeyRule struct {
	Prefix string
	Re     *regexp.Regexp
	// Overrides says that entering the command with a new value replaces
	// the old one (`mtu 9214` over `mtu 9000`); otherwise the old line is
	// negated first (a DSCP map line whose list shrank, a service policy
	// NX-OS refuses to attach over another).
	Overrides bool
}

// KindRule names the catalog element of the elements whose path starts
// with Top (its first segment) and whose last segment starts with Leaf
// ("" for any).
type KindRule struct {
	Top, Leaf string
	Kind      string
}

// key splits a line. A `no X` line has X's key and the value "no" (with
// X's value after it), so that `no priority` and `priority strict`, or
// `no shutdown` and `shutdown`, are one element with two values.
func (d *Dialect) key(line string) (key, value string, overrides bool) {
	if rest, ok := strings.CutPrefix(line, "no "); ok {
		k, v, _ := d.key(rest)
		if v == "" {
			return k, "no", true
		}
		return k, "no " + v, true
	}
	for _, r := range d.Keys {
		if !strings.HasPrefix(line, r.Prefix) {
			continue
		}
		if r.Re == nil {
			v := line[len(r.Prefix):]
			if v == "" {
				continue
			}
			return strings.TrimSpace(r.Prefix), v, r.Overrides
		}
		m := r.Re.FindStringSubmatchIndex(line)
		if m == nil || len(m) < 4 || m[2] < 0 {
			continue
		}
		k := strings.TrimSpace(line[:m[2]])
		if m[3] < len(line) {
			k = line[:m[2]] + "*" + line[m[3]:]
		}
		return k, line[m[2]:m[3]], r.Overrides
	}
	return line, "", true
}

// Negation is a `no` line the device keeps in the modes whose line
// starts with Mode ("" for every mode, the top level included).
type Negation struct {
	Mode, Line string
}

// negation reports whether line is a `no` form the device keeps in the
// mode opened by mode ("" at the top level).
func (d *Dialect) negation(mode, line string) bool {
	for _, n := range d.Negations {
		if line == n.Line && strings.HasPrefix(mode, n.Mode) {
			return true
		}
	}
	return false
}

// kind returns the catalog element of the element at the path whose first
// and last segments are top and leaf.
func (d *Dialect) kind(top, leaf string) string {
	for _, r := range d.Kinds {
		if strings.HasPrefix(top, r.Top) && strings.HasPrefix(leaf, r.Leaf) {
			return r.Kind
		}
	}
	return ""
}

// keyed is one configuration line of a mode with the key it is compared by.
type keyed struct {
	n          *Node
	key, value string
	overrides  bool
}

// keys returns the configuration lines of ns with their keys. Two lines of
// one mode with the same key (a match-any class map with two `match dscp`
// lines) are each keyed by their whole line instead, so that keys stay
// unique and nothing is lost.
func (d *Dialect) keys(ns []*Node) []keyed {
	out := make([]keyed, 0, len(ns))
	seen := make(map[string]int, len(ns))
	for _, n := range ns {
		if n.Comment {
			continue
		}
		k, v, o := d.key(n.Line)
		seen[k]++
		out = append(out, keyed{n, k, v, o})
	}
	if len(seen) == len(out) {
		return out
	}
	for i, k := range out {
		if seen[k.key] > 1 {
			out[i] = keyed{k.n, k.n.Line, "", true}
		}
	}
	// A line printed twice in a mode is one line.
	lines := make(map[string]bool, len(out))
	kept := out[:0]
	for _, k := range out {
		if !lines[k.key] {
			lines[k.key] = true
			kept = append(kept, k)
		}
	}
	return kept
}

// Elements flattens an owned tree: one element per configuration line,
// its path the keys of its modes and its own joined by " > ", its value
// what its key leaves of the line ("" for a line that is its own key),
// its kind the one a renderer's model names, or for a parsed running
// configuration the one the dialect's Kinds give.
func (d *Dialect) Elements(t *Tree) []renderers.Element {
	var out []renderers.Element
	var walk func(ns []*Node, prefix, top string)
	walk = func(ns []*Node, prefix, top string) {
		for _, k := range d.keys(ns) {
			path, tp := k.key, top
			if prefix != "" {
				path = prefix + " > " + k.key
			} else {
				tp = k.key
			}
			kind := k.n.Kind
			if !t.built {
				kind = d.kind(tp, k.key)
			}
			out = append(out, renderers.Element{Path: path, Value: k.value, Kind: kind})
			walk(k.n.Children, path, tp)
		}
	}
	walk(t.Nodes, "", "")
	return renderers.Elements(out).Elements()
}
