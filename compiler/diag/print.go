package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// RuleInfo describes a rule for the formats that carry rule metadata
// (SARIF), so that a code-scanning UI can show what a rule is about without
// the user running `rocefab lint --explain`.
type RuleInfo struct {
	ID       string   // stable ID, e.g. "RF102"
	Name     string   // short name, e.g. "ecn-before-pfc"
	Severity Severity // default severity of the rule
	Title    string   // one line
	Doc      string   // paragraph(s), as printed by --explain
	HelpURI  string   // optional link to the rule's documentation
}

// Format names an output format of [Print].
type Format string

// The output formats. Text is for people, JSON for scripts, SARIF for code
// scanning services and GitHub for inline annotations in GitHub Actions.
const (
	FormatText   Format = "text"
	FormatJSON   Format = "json"
	FormatSARIF  Format = "sarif"
	FormatGitHub Format = "github"
)

// Formats returns every format in the order help texts should list them.
func Formats() []Format {
	return []Format{FormatText, FormatJSON, FormatSARIF, FormatGitHub}
}

// ParseFormat reads a format name. The error lists the allowed values so
// that a mistyped flag tells the user what to type instead.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if s == string(f) {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q: allowed are %s", s, strings.Join(names, ", "))
}

// String returns the format name; with Set and Type it lets a *Format be
// used directly as a command-line flag value.
func (f Format) String() string { return string(f) }

// Set parses s into f, rejecting unknown names at flag-parsing time.
func (f *Format) Set(s string) error {
	v, err := ParseFormat(s)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Type names the flag value type in generated help.
func (f *Format) Type() string { return "format" }

// Config holds what the printers need beyond the diagnostics themselves.
type Config struct {
	// Cwd is the directory absolute positions are made relative to, so
	// that output does not depend on where the checkout lives and so that
	// CI annotations and SARIF URIs resolve against the repository root.
	// Positions outside Cwd keep their absolute path. Empty means leave
	// paths as they are (still with forward slashes).
	Cwd string
	// Color turns on ANSI colour in text output. The caller sets it only
	// when it knows the output is a terminal; the printers never guess.
	Color bool
	// Rules supplies SARIF rule metadata. A rule that is used by a
	// diagnostic but missing here still gets a minimal entry, so that
	// every result has a rule to point at.
	Rules []RuleInfo
	// ToolVersion is reported as the SARIF tool version.
	ToolVersion string
	// TextLimit bounds how many findings the text format prints; the
	// rest are counted in one line (see MoreHint) before the summary, so
	// that a broken intent does not scroll its first, usually causal,
	// findings off the screen. Zero or less prints every finding. The
	// other formats are for programs and always carry every finding.
	TextLimit int
	// MoreHint tells the reader how to see the findings TextLimit left
	// out, e.g. "use --format json for all"; empty means that hint.
	MoreHint string
	// ToolError, when not empty, says why the tool could not do its job
	// (an unreadable intent, say). SARIF records it as a failed
	// invocation with an error notification, so that a code-scanning
	// upload shows the failure instead of a clean run; the other formats
	// leave it to the caller, which prints it on stderr.
	ToolError string
}

// DefaultTextLimit is the number of findings text output shows before
// summing up the rest.
const DefaultTextLimit = 20

// Dedupe returns l without repeated diagnostics: a finding identical in
// every field (rule, severity, position, message, device, port) to an
// earlier one is dropped, keeping the first occurrence and the order.
// Two routes to the same problem (CUE reports a conflict once per
// unified value) thus print once. l is not modified.
func (l List) Dedupe() List {
	seen := make(map[Diagnostic]bool, len(l))
	out := make(List, 0, len(l))
	for _, d := range l {
		if seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

// Print writes l to w in format f. Diagnostics are printed in the order of
// l, each once ([List.Dedupe]); call [List.Sort] first for output that does
// not depend on the order the rules ran in. The output is built completely
// before it is written, so a failing writer never receives half a JSON or
// SARIF document from us.
func Print(w io.Writer, l List, f Format, c Config) error {
	l = l.Dedupe()
	var buf bytes.Buffer
	var err error
	switch f {
	case FormatText:
		printText(&buf, l, c)
	case FormatJSON:
		err = printJSON(&buf, l, c)
	case FormatSARIF:
		err = printSARIF(&buf, l, c)
	case FormatGitHub:
		printGitHub(&buf, l, c)
	default:
		_, err = ParseFormat(string(f))
	}
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// relPath returns file relative to cwd when it lies under cwd, with forward
// slashes in every case so that output is the same on every OS. Relative
// files are taken to be relative to cwd already and are left alone.
func relPath(cwd, file string) string {
	if file == "" {
		return ""
	}
	if cwd != "" && filepath.IsAbs(file) && filepath.IsAbs(cwd) {
		r, err := filepath.Rel(cwd, file)
		if err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			file = r
		}
	}
	return filepath.ToSlash(file)
}

// relPos returns p with its file made relative by relPath.
func relPos(cwd string, p Pos) Pos {
	p.File = relPath(cwd, p.File)
	return p
}

// where returns "device" or "device:port", or "" when the diagnostic is not
// about one device.
func (d Diagnostic) where() string {
	if d.Device == "" {
		return ""
	}
	if d.Port != "" {
		return d.Device + ":" + d.Port
	}
	return d.Device
}

// fullMessage prefixes the message with the device and port, like
// [Diagnostic.String], for formats without separate fields for them.
func (d Diagnostic) fullMessage() string {
	if at := d.where(); at != "" {
		return at + ": " + d.Message
	}
	return d.Message
}

// title returns "RF102 ecn-before-pfc", leaving out whichever part is empty.
func (d Diagnostic) title() string {
	switch {
	case d.Name == "":
		return d.Rule
	case d.Rule == "":
		return d.Name
	}
	return d.Rule + " " + d.Name
}

// ANSI escape sequences for text output.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// severityColor picks the colour for a severity word.
func severityColor(s Severity) string {
	switch s {
	case Error:
		return ansiRed
	case Warning:
		return ansiYellow
	}
	return ansiCyan
}

// printText writes one line per diagnostic in the file:line:col form that
// editors and terminals turn into links, at most c.TextLimit of them, then
// how many were left out and a count of all, so that a long list still
// ends with the verdict.
func printText(buf *bytes.Buffer, l List, c Config) {
	if len(l) == 0 {
		return
	}
	shown := l
	if c.TextLimit > 0 && len(l) > c.TextLimit {
		shown = l[:c.TextLimit]
	}
	for _, d := range shown {
		sev, title := d.Severity.String(), d.title()
		if c.Color {
			sev = severityColor(d.Severity) + sev + ansiReset
			title = ansiBold + title + ansiReset
		}
		fmt.Fprintf(buf, "%s: %s %s: %s\n", relPos(c.Cwd, d.Pos), sev, title, d.fullMessage())
	}
	if more := len(l) - len(shown); more > 0 {
		hint := c.MoreHint
		if hint == "" {
			hint = "use --format json for all"
		}
		fmt.Fprintf(buf, "and %d more (%s)\n", more, hint)
	}
	errs, warns := l.Count(Error), l.Count(Warning)-l.Count(Error)
	buf.WriteString(plural(errs, "error") + ", " + plural(warns, "warning"))
	if infos := len(l) - errs - warns; infos > 0 {
		// Info findings are rare; mention them only when present so the
		// usual summary keeps its short form.
		buf.WriteString(", " + strconv.Itoa(infos) + " info")
	}
	buf.WriteByte('\n')
}

// plural formats "1 error" or "2 errors".
func plural(n int, word string) string { return Plural(n, word, word+"s") }

// Plural formats a count with the noun that agrees with it: "1 device",
// "0 devices", "2 devices". Messages use it wherever a count can be 1.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// jsonDiag fixes the key set and key order of the JSON output, which is a
// contract with scripts: file, line and column are always present (zero
// when unknown) and the optional keys appear only when set.
type jsonDiag struct {
	Rule     string   `json:"rule"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Device   string   `json:"device,omitempty"`
	Port     string   `json:"port,omitempty"`
	Pointer  string   `json:"pointer,omitempty"`
}

// printJSON writes the diagnostics as a JSON array; an empty list is `[]`,
// never null, so that consumers can iterate without a nil check.
func printJSON(buf *bytes.Buffer, l List, c Config) error {
	out := make([]jsonDiag, 0, len(l))
	for _, d := range l {
		out = append(out, jsonDiag{
			Rule:     d.Rule,
			Name:     d.Name,
			Severity: d.Severity,
			Message:  d.Message,
			File:     relPath(c.Cwd, d.Pos.File),
			Line:     d.Pos.Line,
			Column:   d.Pos.Column,
			Device:   d.Device,
			Port:     d.Port,
			Pointer:  d.Pos.Pointer,
		})
	}
	return encodeJSON(buf, out)
}

// encodeJSON writes v indented by two spaces with a trailing newline. HTML
// escaping is off because messages quote values such as "<= 100", which
// would otherwise read as \u003c= 100.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printGitHub writes one workflow command per diagnostic, which GitHub
// Actions shows as an annotation on the file and line.
func printGitHub(buf *bytes.Buffer, l List, c Config) {
	for _, d := range l {
		cmd := "error"
		switch d.Severity {
		case Warning:
			cmd = "warning"
		case Info:
			cmd = "notice"
		}
		var props []string
		if f := relPath(c.Cwd, d.Pos.File); f != "" {
			props = append(props, "file="+escapeGitHubProperty(f))
			if d.Pos.Line > 0 {
				props = append(props, "line="+strconv.Itoa(d.Pos.Line))
				if d.Pos.Column > 0 {
					props = append(props, "col="+strconv.Itoa(d.Pos.Column))
				}
			}
		}
		if t := d.title(); t != "" {
			props = append(props, "title="+escapeGitHubProperty(t))
		}
		buf.WriteString("::" + cmd)
		if len(props) > 0 {
			buf.WriteString(" " + strings.Join(props, ","))
		}
		buf.WriteString("::" + escapeGitHubData(d.fullMessage()) + "\n")
	}
}

// githubData and githubProperty escape as the Actions toolkit does
// (escapeData and escapeProperty in @actions/core): a raw newline would end
// the command, and in properties ':' and ',' would end the value.
var (
	githubData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// escapeGitHubData escapes the message of a workflow command.
func escapeGitHubData(s string) string { return githubData.Replace(s) }

// escapeGitHubProperty escapes a property value of a workflow command.
func escapeGitHubProperty(s string) string { return githubProperty.Replace(s) }
