// Package diag defines the one positioned finding type of rocefab, the
// [Diagnostic], and prints lists of them as text, JSON, SARIF 2.1.0 or GitHub
// workflow annotations.
//
// A diagnostic is a finding, not a failure: lint rules report diagnostics,
// and an error means a tool could not do its job. Every diagnostic names the
// place in the user's file that caused it, so that the printers can say
// file:line:col.
package diag

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity ranks a diagnostic. The zero value is [Error] so that a
// diagnostic never silently becomes harmless.
type Severity int

// The severities, most severe first.
const (
	Error Severity = iota
	Warning
	Info
)

// String returns the lowercase name used in every output format.
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "error":
		return Error, nil
	case "warning":
		return Warning, nil
	case "info":
		return Info, nil
	}
	return Error, fmt.Errorf("unknown severity %q: allowed are error, warning, info", s)
}

// MarshalText makes severities print as words in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the words written by MarshalText.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Pos is a position in a source file. Line and Column count from 1; a zero
// Line means the position is unknown (the file alone is still useful).
// Pointer, when set, is the RFC 6901 JSON pointer of the value inside a
// JSON file, which is how users find an element in a large inventory.
type Pos struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Pointer string `json:"pointer,omitempty"`
}

// IsValid reports whether the position names at least a file.
func (p Pos) IsValid() bool { return p.File != "" }

// String formats the position as file:line:col, leaving out what is unknown.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return "-"
	case p.Line == 0 && p.Pointer != "":
		return p.File + "#" + p.Pointer
	case p.Line == 0:
		return p.File
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Compare orders positions by file, line and column.
func (p Pos) Compare(q Pos) int {
	return cmp.Or(cmp.Compare(p.File, q.File), cmp.Compare(p.Line, q.Line),
		cmp.Compare(p.Column, q.Column), cmp.Compare(p.Pointer, q.Pointer))
}

// A Diagnostic is one finding: which rule, how severe, where and what.
// Device and Port are set when the finding is about one device (or one of
// its ports) of the expanded fabric rather than the intent as a whole.
type Diagnostic struct {
	Rule     string   // stable ID, e.g. "RF102"
	Name     string   // the rule's short name, e.g. "ecn-before-pfc"
	Severity Severity // the rule's severity unless the finding overrides it
	Message  string   // one sentence: the value, why it is wrong, what is allowed
	Pos      Pos      // the intent field that caused the finding
	Device   string   // optional
	Port     string   // optional
}

// String formats the diagnostic as a single text line.
func (d Diagnostic) String() string { return d.Pos.String() + ": " + d.Summary() }

// Summary is the diagnostic without its position: severity, rule, name and
// message, prefixed by the device (and port) it is about.
func (d Diagnostic) Summary() string {
	msg := d.Message
	if d.Device != "" {
		at := d.Device
		if d.Port != "" {
			at += ":" + d.Port
		}
		msg = at + ": " + msg
	}
	return fmt.Sprintf("%s %s %s: %s", d.Severity, d.Rule, d.Name, msg)
}

// List is an ordered set of diagnostics.
type List []Diagnostic

// Sort orders the list by position, then rule, device, port and message,
// so that output is the same whatever order the rules ran in.
func (l List) Sort() {
	slices.SortStableFunc(l, func(a, b Diagnostic) int {
		return cmp.Or(a.Pos.Compare(b.Pos), cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Device, b.Device), cmp.Compare(a.Port, b.Port),
			cmp.Compare(a.Message, b.Message))
	})
}

// Count returns how many diagnostics are at least as severe as min.
func (l List) Count(min Severity) int {
	n := 0
	for _, d := range l {
		if d.Severity <= min {
			n++
		}
	}
	return n
}

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool { return l.Count(Error) > 0 }
