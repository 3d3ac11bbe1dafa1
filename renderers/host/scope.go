package host

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// CheckScope refuses a server's remediation that reaches outside what
// rocefab owns on server d, reading the remediation alone
// (renderers.ScopeChecker): it must be for d, install its settings at
// SettingsPath only, name only the runtime's sections and settings, run
// nothing but the runtime on those sections, and the host.conf it
// installs must be settings only: comments and `readonly NAME=VALUE`
// lines of the names rocefab writes for d, each value a single-quoted
// constant, an integer or an array of them. A shell command, a
// substitution or a setting of another name is refused, whatever
// checksum the remediation states for the file.
func (Renderer) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	if err := checkServer(d); err != nil {
		return err
	}
	if ok, err := renderers.ScopeInput("host", d, rem, renderers.JSON, "a server's settings and sections"); !ok {
		return err
	}
	outside := func(format string, args ...any) error {
		return renderers.OutsideScope("host", d, fmt.Sprintf(format, args...))
	}
	var r remedy
	if err := renderers.DecodeRemediation(rem.Content, &r); err != nil {
		return fmt.Errorf("host: %s: remediation: %w", d.Name, err)
	}
	if r.Device != d.Name {
		return outside("the remediation is for %q", r.Device)
	}
	if r.Install.Path != SettingsPath {
		return outside("it installs %q, and the settings go to %s only", r.Install.Path, SettingsPath)
	}
	for _, s := range r.Sections {
		if !slices.Contains(sectionOrder, s) {
			return outside("section %q: the runtime's sections are %s", s, strings.Join(sectionOrder, ", "))
		}
	}
	if want := []string{RuntimePath, "--settings", SettingsPath, "--only", strings.Join(r.Sections, ",")}; !slices.Equal(r.Run, want) {
		return outside("it runs %q, and a remediation runs only %q", r.Run, want)
	}
	for _, w := range r.Writes {
		if dev, _, _ := strings.Cut(w.Path, "/"); !ownsSetting(d, dev) {
			return outside("setting %q", w.Path)
		}
		if _, sec := kindOf(w.Path); sec == "" || !slices.Contains(r.Sections, sec) {
			return outside("setting %q is none the named sections write", w.Path)
		}
	}
	ours, err := confNames(conf(d))
	if err != nil {
		return fmt.Errorf("host: %s: internal error: its own host.conf: %w", d.Name, err)
	}
	known := map[string]bool{}
	for _, n := range ours {
		known[n.name] = true
	}
	names, err := confNames([]byte(r.Install.Content))
	if err != nil {
		return outside("host.conf %v", err)
	}
	for _, n := range names {
		if !known[n.name] {
			return outside("host.conf line %d: setting %s is not one rocefab writes for %s", n.line, n.name, d.Name)
		}
	}
	return nil
}

// ownsSetting reports whether a setting's device part (a netdev, an HCA,
// or a shaped interface) is one of d's.
func ownsSetting(d *ir.Device, dev string) bool {
	for _, n := range d.Host.NICs {
		if dev == n.Port || dev == n.HCA {
			return true
		}
	}
	for _, s := range d.Host.Profile.Shaping {
		if dev == s.Interface {
			return true
		}
	}
	return false
}

// confName is a setting host.conf defines, and its line.
type confName struct {
	name string
	line int
}

var (
	confScalar = regexp.MustCompile(`^readonly ([A-Z][A-Z0-9_]*)=('[^']*'|-?[0-9]+)$`)
	confArray  = regexp.MustCompile(`^readonly -a ([A-Z][A-Z0-9_]*)=\((.*)$`)
)

// confNames reads host.conf as data and returns the names it defines, in
// order: comments, blank lines, and `readonly NAME=VALUE` or `readonly -a
// NAME=(VALUE ...)` (one line, or one element row a line up to a line
// `)`), where a value is a single-quoted constant or an integer and an
// element row may end in a comment. Anything else is an error with its
// line.
func confNames(src []byte) ([]confName, error) {
	var out []confName
	inArray := false
	for i, line := range strings.Split(string(src), "\n") {
		n := i + 1
		t := strings.TrimSpace(line)
		if inArray {
			if t == ")" {
				inArray = false
				continue
			}
			if err := confElements(t); err != nil {
				return nil, fmt.Errorf("line %d %q: %w", n, shorten(t), err)
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if m := confScalar.FindStringSubmatch(t); m != nil {
			out = append(out, confName{m[1], n})
			continue
		}
		m := confArray.FindStringSubmatch(t)
		if m == nil {
			return nil, fmt.Errorf("line %d %q: not a setting (readonly NAME=VALUE) or a comment", n, shorten(t))
		}
		out = append(out, confName{m[1], n})
		rest := m[2]
		if rest == "" {
			inArray = true
			continue
		}
		body, ok := strings.CutSuffix(rest, ")")
		if !ok {
			return nil, fmt.Errorf("line %d %q: an array ends with ')' on its line, or opens with '(' alone", n, shorten(t))
		}
		if err := confElements(body); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", n, shorten(t), err)
		}
	}
	if inArray {
		return nil, fmt.Errorf("an array is not closed by a line ')'")
	}
	for i, a := range out {
		for _, b := range out[:i] {
			if a.name == b.name {
				return nil, fmt.Errorf("line %d: %s is set twice (line %d)", a.line, a.name, b.line)
			}
		}
	}
	return out, nil
}

// confElements checks an array's elements: single-quoted constants and
// integers separated by blanks, then an optional comment.
func confElements(s string) error {
	for s = strings.TrimLeft(s, " \t"); s != ""; s = strings.TrimLeft(s, " \t") {
		switch c := s[0]; {
		case c == '#':
			return nil
		case c == '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return fmt.Errorf("a quote is not closed")
			}
			s = s[end+2:]
		case c == '-' || c >= '0' && c <= '9':
			j := 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if c == '-' && j == 1 {
				return fmt.Errorf("%q: not a single-quoted constant or an integer", shorten(s))
			}
			s = s[j:]
		default:
			return fmt.Errorf("%q: not a single-quoted constant or an integer", shorten(s))
		}
		if s != "" && s[0] != ' ' && s[0] != '\t' {
			return fmt.Errorf("%q: values are separated by blanks", shorten(s))
		}
	}
	return nil
}

// shorten cuts a quoted line for an error message.
func shorten(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
