package nvue

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// The remediation is a list of `nv set` and `nv unset` commands, one a
// line, for a pending revision that is then applied with `nv config apply
// --confirm`: NVUE's flat CLI names every configuration path by its keys
// (NVUE reference, "Set and Unset Commands"), and `nv config patch` also
// takes "a text file of nv set/unset lines" (CumulusNetworks/docs@1baa8142
// content/cumulus-linux-515/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-CLI.md,
// as summarised in the project's switches.md §2.4). A YAML patch was not
// chosen because a patch "cannot both unset and set the same object",
// which a changed PFC profile needs.

// Diff returns the changes that make running into desired, each with its
// disruption, and the commands that make them.
func (Renderer) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	if d == nil {
		return nil, renderers.Remediation{}, fmt.Errorf("nvue: nil device")
	}
	have, want := elementsOf(running), elementsOf(desired)
	changes := diffSorted(have, want, renderers.Disruptions(d.Disruption[ir.PlatformNVUE]))
	floorDisruption.Raise(changes)
	rem := renderers.Remediation{Format: renderers.Text}
	if len(changes) > 0 {
		rem.Content = commands(changes, want)
	}
	return changes, rem, nil
}

// elementsOf returns s's elements sorted by path with unique paths (the
// later of two equal paths winning), without a copy when s is this
// platform's state, which Diff only reads.
func elementsOf(s renderers.State) []renderers.Element {
	es := s.Elements
	if st, ok := s.(*State); ok && st != nil {
		es = func() []renderers.Element { return st.elements }
	}
	out := es()
	if !strictlySorted(out) {
		out = newState(slices.Clone(out)).elements
	}
	return out
}

// diffSorted is renderers.DiffElements for elements sorted by path with
// unique paths (sortedElements): one merge of the two lists rather than a
// map of each, which took a third of a plan's time for a leaf.
func diffSorted(running, desired []renderers.Element, ds renderers.Disruptions) []renderers.Change {
	byPath := func(a, b renderers.Element) int { return strings.Compare(a.Path, b.Path) }
	var out []renderers.Change
	i, j := 0, 0
	for i < len(running) || j < len(desired) {
		c := 0
		switch {
		case i == len(running):
			c = 1
		case j == len(desired):
			c = -1
		default:
			c = byPath(running[i], desired[j])
		}
		switch {
		case c < 0: // only running has it: remove
			h := running[i]
			out = append(out, renderers.Change{Path: h.Path, Before: new(h.Value), Kind: h.Kind, Disruption: ds.Of(h.Kind)})
			i++
		case c > 0: // only desired has it: add
			w := desired[j]
			out = append(out, renderers.Change{Path: w.Path, After: new(w.Value), Kind: w.Kind, Disruption: ds.Of(w.Kind)})
			j++
		default:
			h, w := running[i], desired[j]
			if h.Value != w.Value {
				out = append(out, renderers.Change{Path: w.Path, Before: new(h.Value), After: new(w.Value), Kind: w.Kind, Disruption: ds.Of(w.Kind)})
			}
			i, j = i+1, j+1
		}
	}
	return out
}

// strictlySorted reports whether es is sorted by path without a path twice.
func strictlySorted(es []renderers.Element) bool {
	for i := 1; i < len(es); i++ {
		if es[i-1].Path >= es[i].Path {
			return false
		}
	}
	return true
}

// wantedAt reports whether p is the path of an element of want (sorted by
// path) or of one of its ancestors.
func wantedAt(want []renderers.Element, p string) bool {
	if _, found := slices.BinarySearchFunc(want, p, comparePath); found {
		return true
	}
	// p's descendants are the paths that start with p+"/", together in
	// the order (elements such as p+"-x" sort between p and them).
	below := p + "/"
	i, _ := slices.BinarySearchFunc(want, below, comparePath)
	return i < len(want) && strings.HasPrefix(want[i].Path, below)
}

func comparePath(e renderers.Element, p string) int { return strings.Compare(e.Path, p) }

// commands writes changes as nv set / nv unset lines in an order a pending
// revision takes: interface bindings are unset first; breakouts are set
// before the split ports they create; global settings (PFC profiles,
// pools) before the interface lines that bind them; global entries are
// unset last, once no interface binds them. A removed subtree is unset at
// its top, never above its owned root.
//
// want is the desired state's elements, sorted by path.
func commands(changes []renderers.Change, want []renderers.Element) []byte {
	// Each line is kept with its text, which orders it.
	type cmdLine struct {
		words []string
		text  string
	}
	var groups [5][]cmdLine
	add := func(g int, words []string) {
		groups[g] = append(groups[g], cmdLine{words, strings.Join(words, " ")})
	}
	unset := map[string]bool{}
	for _, c := range changes {
		segs := splitPath(c.Path)
		iface := segs[0] == "interface"
		if c.After == nil {
			if wantedAt(want, c.Path) {
				// An empty mapping in running whose entries are now set.
				continue
			}
			top := len(segs)
			for n := max(rootLen(segs), 1); n <= len(segs); n++ {
				if !wantedAt(want, pathPrefix(c.Path, n)) {
					top = n
					break
				}
			}
			p := pathPrefix(c.Path, top)
			if unset[p] {
				continue
			}
			unset[p] = true
			g := 4
			if iface {
				g = 0
			}
			add(g, append([]string{"nv", "unset"}, segs[:top]...))
			continue
		}
		line := append([]string{"nv", "set"}, segs...)
		if *c.After != emptyValue {
			line = append(line, *c.After)
		}
		switch {
		case iface && len(segs) > 3 && segs[2] == "link" && segs[3] == "breakout":
			add(1, line)
		case iface:
			add(3, line)
		default:
			add(2, line)
		}
	}
	var b bytes.Buffer
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b cmdLine) int { return naturalCompare(a.text, b.text) })
		for _, line := range g {
			for i, t := range line.words {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(shellQuote(t))
			}
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// pathPrefix returns the path of the first n keys of path p (joinPath of
// splitPath(p)[:n]) without splitting it.
func pathPrefix(p string, n int) string {
	for i := range len(p) {
		if p[i] == '/' {
			n--
			if n == 0 {
				return p[:i]
			}
		}
	}
	return p
}

// shellQuote quotes a token for the shell nv runs in: single quotes, a
// quote inside written '\”.
func shellQuote(s string) string {
	if s != "" && shellSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSafe reports whether s holds only [A-Za-z0-9_.,:/@%+=-], which no
// shell reads as anything but the word itself. A byte loop: every word of
// every command passes here.
func shellSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_', c == '.', c == ',', c == ':', c == '/', c == '@', c == '%', c == '+', c == '=', c == '-':
		default:
			return false
		}
	}
	return true
}

// splitCommand splits a line as a POSIX shell splits words with single
// and double quotes and backslashes, which is all shellQuote writes and
// all a person writing these lines by hand needs.
func splitCommand(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("an unterminated single quote")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("an unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("a backslash at the end of the line")
			}
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// Apply applies nv set / nv unset lines to the running nvue.yaml the way
// NVUE changes its configuration: a set creates the path and sets its
// value, an unset removes the key and what lies below it. Everything the
// lines do not name stays as it was as YAML data (the file is re-encoded,
// so spacing and quoting may change; comments are kept where the YAML
// encoder keeps them). A running file keyed by a range (swp1-32) that a
// line edits inside is refused: read the device with --expand.
func (Renderer) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	if len(bytes.TrimSpace(rem.Content)) == 0 {
		return out, nil
	}
	if rem.Format != renderers.Text {
		return nil, fmt.Errorf("nvue: a remediation in %q, not nv set/unset lines in %q", rem.Format, renderers.Text)
	}
	at, err := renderers.RunningFile(running, File)
	if err != nil {
		return nil, fmt.Errorf("nvue: %w", err)
	}
	var src []byte
	if at >= 0 {
		src = running[at].Content
	} else {
		out = append(out, renderers.Artifact{Path: renderers.NewArtifactPath(running, File), Format: renderers.YAML})
		at = len(out) - 1
	}
	// The switch's own guard: no line outside the roots rocefab owns (on
	// any interface, since the lines name no device), but for the one
	// line that sets an interface's link state (a quarantine's, shut.go).
	if _, admin := adminPort(rem); !admin {
		if err := checkCommands(scope{anyIface: true}, rem.Content); err != nil {
			return nil, fmt.Errorf("nvue: %s: %w", out[at].Path, err)
		}
	}
	res, err := applyCommands(src, rem.Content)
	if err != nil {
		return nil, fmt.Errorf("nvue: %s: %w", out[at].Path, err)
	}
	out[at].Content = res
	return out, nil
}

// command is one `nv set` or `nv unset` line: its 1-based line number,
// its text, and the words after set or unset.
type command struct {
	line int
	text string
	set  bool
	args []string
}

// readCommands reads the lines of cmds, skipping blank lines and
// comments; any line but `nv set PATH VALUE` or `nv unset PATH` is an
// error naming it.
func readCommands(cmds []byte) ([]command, error) {
	var out []command
	for i, line := range strings.Split(string(cmds), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		words, err := splitCommand(t)
		if err != nil {
			return nil, fmt.Errorf("command line %d: %w", i+1, err)
		}
		if len(words) < 3 || words[0] != "nv" || (words[1] != "set" && words[1] != "unset") {
			return nil, fmt.Errorf("command line %d %q: only `nv set PATH VALUE` and `nv unset PATH` are taken", i+1, t)
		}
		out = append(out, command{line: i + 1, text: t, set: words[1] == "set", args: words[2:]})
	}
	return out, nil
}

// applyCommands applies the lines of cmds to the document src.
func applyCommands(src, cmds []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	set, err := editableSet(&doc)
	if err != nil {
		return nil, err
	}
	lines, err := readCommands(cmds)
	if err != nil {
		return nil, err
	}
	for _, c := range lines {
		i, t, args := c.line-1, c.text, c.args
		if !c.set {
			if err := unsetPath(set, args); err != nil {
				return nil, fmt.Errorf("command line %d %q: %w", i+1, t, err)
			}
			continue
		}
		if emptyEntry(args) {
			if _, err := mappingAt(set, args); err != nil {
				return nil, fmt.Errorf("command line %d %q: %w", i+1, t, err)
			}
			continue
		}
		if len(args) < 2 {
			return nil, fmt.Errorf("command line %d %q: a set needs a path and a value", i+1, t)
		}
		parent, err := mappingAt(set, args[:len(args)-2])
		if err != nil {
			return nil, fmt.Errorf("command line %d %q: %w", i+1, t, err)
		}
		if err := setScalar(parent, args[len(args)-2], args[len(args)-1]); err != nil {
			return nil, fmt.Errorf("command line %d %q: %w", i+1, t, err)
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// editableSet returns the `set` mapping of doc, creating the list form nv
// config show prints when the document is empty or has no set item.
func editableSet(doc *yaml.Node) (*yaml.Node, error) {
	if doc.Kind == 0 || len(doc.Content) == 0 || (doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null") {
		doc.Kind, doc.Content = yaml.DocumentNode, []*yaml.Node{{Kind: yaml.SequenceNode, Tag: "!!seq"}}
	}
	top := doc.Content[0]
	newSet := func(item *yaml.Node) *yaml.Node {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		item.Content = append(item.Content, strNode("set"), m)
		return m
	}
	find := func(item *yaml.Node) *yaml.Node {
		for i := 0; i+1 < len(item.Content); i += 2 {
			if item.Content[i].Value == "set" {
				v := item.Content[i+1]
				if v.Kind != yaml.MappingNode {
					*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				}
				return v
			}
		}
		return nil
	}
	switch top.Kind {
	case yaml.SequenceNode:
		for _, item := range top.Content {
			if item.Kind == yaml.MappingNode {
				if s := find(item); s != nil {
					return s, nil
				}
			}
		}
		item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		top.Content = append(top.Content, item)
		return newSet(item), nil
	case yaml.MappingNode:
		for i := 0; i+1 < len(top.Content); i += 2 {
			if k := top.Content[i].Value; k == "set" || k == "header" {
				if s := find(top); s != nil {
					return s, nil
				}
				return newSet(top), nil
			}
		}
		return top, nil
	}
	return nil, fmt.Errorf("line %d: the document is neither a list of `set` items nor a mapping", top.Line)
}

func strNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// valueNode writes a value as NVUE prints it: whole numbers as integers,
// everything else as a string.
func valueNode(s string) *yaml.Node {
	if s != "" && strings.Trim(s, "0123456789") == "" && (s == "0" || s[0] != '0') {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s}
	}
	return strNode(s)
}

// child returns the value under key in mapping m, or nil. A key that is a
// range holding key is an error: editing one member of it would have to
// split the range.
func child(m *yaml.Node, key string) (*yaml.Node, int, error) {
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1], i, nil
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Value == key || !strings.ContainsAny(k.Value, ",-") {
			continue
		}
		for _, parent := range []string{"interface", "dscp", "switch-priority", "traffic-class"} {
			members, _ := expandKey(parent, k.Value)
			if len(members) > 1 && slices.Contains(members, key) {
				return nil, -1, fmt.Errorf("line %d: %s lies in the range key %q: read the running configuration with nv config show --expand", k.Line, key, k.Value)
			}
		}
	}
	return nil, -1, nil
}

// mappingAt returns the mapping at segs below m, creating what is missing
// and replacing a scalar on the way by a mapping, as nv set does.
func mappingAt(m *yaml.Node, segs []string) (*yaml.Node, error) {
	for _, s := range segs {
		v, _, err := child(m, s)
		if err != nil {
			return nil, err
		}
		switch {
		case v == nil:
			v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			m.Content = append(m.Content, strNode(s), v)
		case v.Kind == yaml.AliasNode:
			return nil, fmt.Errorf("line %d: %s is an alias", v.Line, s)
		case v.Kind != yaml.MappingNode:
			*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		m = v
	}
	return m, nil
}

func setScalar(m *yaml.Node, key, value string) error {
	v, _, err := child(m, key)
	if err != nil {
		return err
	}
	if v == nil {
		m.Content = append(m.Content, strNode(key), valueNode(value))
		return nil
	}
	if v.Kind == yaml.ScalarNode && v.Value == value {
		return nil
	}
	n := valueNode(value)
	n.HeadComment, n.LineComment, n.FootComment = v.HeadComment, v.LineComment, v.FootComment
	*v = *n
	return nil
}

// unsetPath removes the key at segs; a path that is not there is left
// alone, as unsetting what is unset changes nothing.
func unsetPath(m *yaml.Node, segs []string) error {
	for i, s := range segs {
		v, at, err := child(m, s)
		if err != nil {
			return err
		}
		if v == nil {
			return nil
		}
		if i == len(segs)-1 {
			m.Content = slices.Delete(m.Content, at, at+2)
			return nil
		}
		if v.Kind != yaml.MappingNode {
			return nil
		}
		m = v
	}
	return nil
}
