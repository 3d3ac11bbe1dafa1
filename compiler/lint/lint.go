// Package lint checks a compiled fabric for the physics and cross-layer
// consistency a lossless RoCE fabric needs: ECN marking before PFC pauses,
// headroom for the cable, a buffer that holds its reservations, one DSCP per
// class end to end, CNP on a strict queue, NCCL's traffic class on a
// lossless priority, and more.
//
// Each rule is a value ([Analyzer]) with a stable ID, a short name, a
// severity, a doc and a Run function; [Suite] lists them explicitly. Rules
// see the fabric only through a [Pass] and report [diag.Diagnostic]s at the
// position of the intent field that caused them. A finding is not a
// failure: Run never fails, it reports.
//
// The model (compiler/ir) is the one source of every value a rule judges,
// so that lint judges what the renderers write. That includes what the
// intent states beyond the devices' settings: the buffer policy and
// whether the intent wrote its reserve (ir.BufferPolicy), the PFC
// watchdog and load-balancing mode of the fabric, the host profile even
// without servers, ECN thresholds given in cells, and each tenant's stated
// NCCL environment and traffic-class origin. The intent remains in a Pass
// for positions alone, as [Positions] ([Pass.Pos], [Pass.At]): the model
// cannot know where in the user's files a field it took a value from was
// written, or the nearest enclosing field when it was not.
package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// Analyzer is one lint rule.
type Analyzer struct {
	ID       string // stable, e.g. "RF102"
	Name     string // short kebab-case name, e.g. "ecn-before-pfc"
	Severity diag.Severity
	// Title is one line; Doc is the paragraph `rocefab lint --explain`
	// prints.
	Title, Doc string
	Run        func(*Pass)
}

// Positions finds intent fields in the user's files: the position of the
// field at path (labels from the root, "classes", "roce", "ecn", "max"),
// or of the nearest enclosing field the user wrote. *schema.Intent is
// one. A rule gets no more of the intent than this, so every value it
// judges comes from the model.
type Positions interface {
	Pos(path ...string) diag.Pos
}

// Pass is what a rule sees: the compiled fabric, the positions of the
// intent it came from, and how to report.
type Pass struct {
	Analyzer *Analyzer
	Fabric   *ir.Fabric
	// Intent locates the fields findings point at; nil gives every
	// finding an unknown position.
	Intent Positions
	// Report records a finding. Rule, Name and Severity are filled from the
	// analyzer when empty.
	Report func(diag.Diagnostic)
	// Further fields may be added in future.

	// nics are the NIC models the pass looked up (lookupNIC).
	nics map[string]nicFound
}

type nicFound struct {
	nic platforms.NIC
	ok  bool
}

// lookupNIC is platforms.LookupNIC for a pass over the servers, which
// share a few models: each model is copied out of the catalog once per
// pass rather than once per server, and the copy is shared, to be read
// only.
func (p *Pass) lookupNIC(model string) (platforms.NIC, bool) {
	if f, ok := p.nics[model]; ok {
		return f.nic, f.ok
	}
	nic, ok := platforms.LookupNIC(model)
	if p.nics == nil {
		p.nics = map[string]nicFound{}
	}
	p.nics[model] = nicFound{nic, ok}
	return nic, ok
}

// Reportf reports a finding of the pass's rule at pos.
func (p *Pass) Reportf(pos diag.Pos, format string, args ...any) {
	p.Report(diag.Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// ReportDevice reports a finding about one device (and port, when set).
func (p *Pass) ReportDevice(pos diag.Pos, device, port, format string, args ...any) {
	p.Report(diag.Diagnostic{Pos: pos, Device: device, Port: port, Message: fmt.Sprintf(format, args...)})
}

// Pos returns the position of a dotted intent path ("classes.roce.ecn.max").
// Names may contain dots ("roce.v2"): use [Pass.At] for paths built from
// names.
func (p *Pass) Pos(path string) diag.Pos {
	if path == "" {
		return p.At()
	}
	return p.At(strings.Split(path, ".")...)
}

// At returns the position of the intent field at labels ("classes", name,
// "ecn", "max"), or of the nearest enclosing field the user wrote.
func (p *Pass) At(labels ...string) diag.Pos {
	if p.Intent == nil {
		return diag.Pos{}
	}
	return p.Intent.Pos(labels...)
}

// Run runs every analyzer of suite over the fabric and returns the findings,
// sorted.
func Run(suite []*Analyzer, f *ir.Fabric, in Positions) diag.List {
	var out diag.List
	for _, a := range suite {
		pass := &Pass{Analyzer: a, Fabric: f, Intent: in}
		pass.Report = func(d diag.Diagnostic) {
			if d.Rule == "" {
				d.Rule, d.Name, d.Severity = a.ID, a.Name, a.Severity
			}
			out = append(out, d)
		}
		a.Run(pass)
	}
	out.Sort()
	return out
}

var idRE = regexp.MustCompile(`^RF[0-9]{3}$`)
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Validate checks a suite's static configuration: IDs and names well formed
// and unique, docs and Run present. The CLI calls it at start-up so a
// misdeclared rule fails at once.
func Validate(suite []*Analyzer) error {
	ids, names := map[string]bool{}, map[string]bool{}
	for _, a := range suite {
		switch {
		case !idRE.MatchString(a.ID):
			return fmt.Errorf("rule %q: ID must look like RF123", a.ID)
		case !nameRE.MatchString(a.Name):
			return fmt.Errorf("rule %s: name %q must be kebab-case", a.ID, a.Name)
		case ids[a.ID] || names[a.Name]:
			return fmt.Errorf("rule %s %s declared twice", a.ID, a.Name)
		case a.Title == "" || a.Doc == "":
			return fmt.Errorf("rule %s has no title or doc", a.ID)
		case a.Run == nil:
			return fmt.Errorf("rule %s has no Run", a.ID)
		}
		ids[a.ID], names[a.Name] = true, true
	}
	return nil
}

// Lookup finds a rule by ID ("RF102", case-insensitive) or name
// ("ecn-before-pfc") among all rules, including the schema rule.
func Lookup(key string) *Analyzer {
	for _, a := range All() {
		if strings.EqualFold(a.ID, key) || a.Name == key {
			return a
		}
	}
	return nil
}

// All returns the schema rule and the suite, by ID.
func All() []*Analyzer {
	all := append([]*Analyzer{SchemaRule}, Suite...)
	slices.SortFunc(all, func(a, b *Analyzer) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// Infos returns the rule metadata the SARIF printer carries.
func Infos() []diag.RuleInfo {
	var out []diag.RuleInfo
	for _, a := range All() {
		out = append(out, diag.RuleInfo{ID: a.ID, Name: a.Name, Severity: a.Severity, Title: a.Title, Doc: a.Doc})
	}
	return out
}

// SchemaRule documents RF001, which the loader reports rather than a pass.
var SchemaRule = &Analyzer{
	ID: "RF001", Name: "schema", Severity: diag.Error,
	Title: "a value the schema rejects",
	Doc: `The intent does not match the rocefab schema: a value of the wrong type, out of range or not
one of the allowed values, a malformed unit ("3x" where a size like "150KB" is wanted), an unknown
field, a name with characters that could reach a CLI line or a shell command, or a field required by
another one (topology.servers unless the style is "explicit"). The message names the field, the value
and what is allowed; ` + "`rocefab schema`" + ` prints the whole schema.`,
	Run: func(*Pass) {},
}
