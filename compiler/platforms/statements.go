package platforms

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// statementsJSON is the table of every statement form a renderer can emit,
// per platform, with the public source that shows the platform accepts it.
// docs/statements.md is generated from it (StatementsMarkdown).
//
//go:embed statements.json
var statementsJSON []byte

// Statement statuses.
const (
	// Sourced: a public source shows the platform accepts the form.
	Sourced = "sourced"
	// Verify: no source found confirms the exact form; renderers mark it in
	// the artifact and RF117 counts it, so that it is checked on the
	// target release before a push.
	Verify = "verify"
)

// Statement is one statement form of one platform. A form is a line (EOS,
// NX-OS), a key path with its value (NVUE, as `nv set` words) or a leaf
// path (OpenConfig), with what varies replaced: N a number, N... a list
// of numbers, IF an interface, TEXT a description, CLASS and PROFILE a
// name rocefab derives from the intent.
type Statement struct {
	Platform string `json:"platform"` // eos, nxos, nvue, openconfig, sonic
	Form     string `json:"form"`
	Status   string `json:"status"` // Sourced or Verify
	// When says on which devices the renderer emits a Verify form, as
	// conditions that all hold (see StatementConditions); lint reads it to
	// count the forms a fabric's artifacts carry.
	When   []string `json:"when,omitempty"`
	Source string   `json:"source"`
}

// StatementConditions are the conditions a Statement's When may use, each
// with what it means of a device. A When word is one condition, or
// alternatives joined by | that share the first one's family
// (lb:adaptive|spray), optionally negated by a leading !.
var StatementConditions = map[string]string{
	"lossless":    "the switch has a lossless priority (PFC)",
	"watchdog":    "the PFC watchdog is enabled",
	"headroom":    "the switch has a PFC headroom port class",
	"lb:ecmp":     "load balancing is ecmp",
	"lb:adaptive": "load balancing is adaptive",
	"lb:spray":    "load balancing is spray",
	"mmu:xgs":     "the ASIC is Broadcom XGS (Trident, Tomahawk)",
	"mmu:dnx":     "the ASIC is Broadcom DNX (Jericho, Qumran)",
	"tc-remap":    "a traffic class 0..6 leaves on a queue other than its own number",
	"split-cage":  "an EOS port is a later lane of a broken-out cage (EthernetN/M, M > 1)",
	"slow-cage":   "an EOS port uses its whole cage slower than the cage's own speed",
	"port-speed":  "a port has a speed",
}

// ParseCondition splits a When word into its negation and the conditions
// it names, any of which satisfies it.
func ParseCondition(w string) (negate bool, conds []string) {
	w, negate = strings.CutPrefix(w, "!")
	family := ""
	for i, alt := range strings.Split(w, "|") {
		if f, _, ok := strings.Cut(alt, ":"); ok {
			family = f
		} else if i > 0 && family != "" {
			alt = family + ":" + alt
		}
		conds = append(conds, alt)
	}
	return negate, conds
}

// statementPlatforms are the platforms of the table, in document order,
// with the heading each has in docs/statements.md.
var statementPlatforms = []struct{ id, heading string }{
	{"eos", "EOS"}, {"nxos", "NX-OS"}, {"nvue", "NVUE"}, {"openconfig", "OpenConfig"}, {"sonic", "SONiC"},
}

type statementIndex struct {
	rows   []Statement
	byForm map[string]map[string]int // platform -> form -> row
}

var loadStatements = sync.OnceValues(func() (*statementIndex, error) { return decodeStatements(statementsJSON) })

func decodeStatements(b []byte) (*statementIndex, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rows []Statement
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("statements.json: %w", err)
	}
	idx := &statementIndex{rows: rows, byForm: map[string]map[string]int{}}
	known := map[string]bool{}
	for _, p := range statementPlatforms {
		known[p.id] = true
	}
	for i, r := range rows {
		at := fmt.Sprintf("statements.json: row %d (%s `%s`)", i+1, r.Platform, r.Form)
		switch {
		case !known[r.Platform]:
			return nil, fmt.Errorf("%s: unknown platform %q", at, r.Platform)
		case r.Form == "" || strings.TrimSpace(r.Form) != r.Form:
			return nil, fmt.Errorf("%s: empty form or surrounding space", at)
		case r.Status != Sourced && r.Status != Verify:
			return nil, fmt.Errorf("%s: status %q, want %s or %s", at, r.Status, Sourced, Verify)
		case r.Source == "":
			return nil, fmt.Errorf("%s: no source", at)
		case r.Status == Verify && len(r.When) == 0:
			return nil, fmt.Errorf("%s: a verify form needs when, the devices it is emitted on", at)
		case strings.ContainsAny(r.Form, "`\n") || strings.Contains(r.Source, "\n"):
			return nil, fmt.Errorf("%s: a form holds no backquote or line break, a source no line break", at)
		}
		for _, w := range r.When {
			_, alts := ParseCondition(w)
			for _, alt := range alts {
				if _, ok := StatementConditions[alt]; !ok {
					return nil, fmt.Errorf("%s: unknown condition %q (known: %s)", at, w, strings.Join(slices.Sorted(maps.Keys(StatementConditions)), ", "))
				}
			}
		}
		if idx.byForm[r.Platform] == nil {
			idx.byForm[r.Platform] = map[string]int{}
		}
		if _, dup := idx.byForm[r.Platform][r.Form]; dup {
			return nil, fmt.Errorf("%s: listed twice", at)
		}
		idx.byForm[r.Platform][r.Form] = i
	}
	return idx, nil
}

// ValidateStatements reports whether the embedded statement table decodes
// and every row is well formed.
func ValidateStatements() error {
	_, err := loadStatements()
	return err
}

// Statements returns every row of the table, in document order (platform,
// then form); nil when the embedded table is invalid (ValidateStatements
// says why).
func Statements() []Statement {
	idx, err := loadStatements()
	if err != nil {
		return nil
	}
	out := make([]Statement, len(idx.rows))
	for i, r := range idx.rows {
		r.When = slices.Clone(r.When)
		out[i] = r
	}
	return out
}

// LookupStatement returns the row of a platform's form.
func LookupStatement(platform, form string) (Statement, bool) {
	idx, err := loadStatements()
	if err != nil {
		return Statement{}, false
	}
	i, ok := idx.byForm[platform][form]
	if !ok {
		return Statement{}, false
	}
	r := idx.rows[i]
	r.When = slices.Clone(r.When)
	return r, true
}

// IsVerify reports whether a platform's form is one no source confirms,
// which the artifact must mark.
func IsVerify(platform, form string) bool { return VerifyForms(platform)[form] }

// VerifyForms returns the set of a platform's forms no source confirms,
// built once and shared by every caller, who must not change it: the
// compiler hands it to each device of the platform (ir.Device.Verify), so
// a fabric holds the table once however many devices it has. Nil for a
// platform without such forms, or when the embedded table is invalid
// (ValidateStatements says why).
func VerifyForms(platform string) map[string]bool { return verifyForms()[platform] }

var verifyForms = sync.OnceValue(func() map[string]map[string]bool {
	idx, err := loadStatements()
	if err != nil {
		return nil
	}
	out := map[string]map[string]bool{}
	for _, r := range idx.rows {
		if r.Status != Verify {
			continue
		}
		if out[r.Platform] == nil {
			out[r.Platform] = map[string]bool{}
		}
		out[r.Platform][r.Form] = true
	}
	return out
})

const statementsIntro = `# Statement forms and their sources

Every statement form a renderer of rocefab can emit, per platform, with the public source that shows the
platform accepts it. A form is a line (EOS, NX-OS), a key path with its value (NVUE, as ` + "`nv set`" + ` words) or a
leaf path (OpenConfig), with what varies replaced: ` + "`N`" + ` a number, ` + "`N...`" + ` a list of numbers, ` + "`IF`" + ` an
interface, ` + "`TEXT`" + ` a description, ` + "`CLASS`" + ` and ` + "`PROFILE`" + ` a name rocefab derives from the intent.

This file is generated from compiler/platforms/statements.json, the table lint and the renderers read:
edit the JSON, then run ` + "`ROCEFAB_UPDATE=1 go test ./compiler/platforms -run TestStatementsDoc`" + `.

Status ` + "`sourced`" + `: the source shows the form accepted (a vendor manual page, the vendor's own templates or
test configurations, at the commit given). Status ` + "`verify`" + `: no source found confirms the exact form; the
artifact marks it (a ` + "`! verify: <form>`" + ` comment line in EOS and NX-OS, ` + "`# verify: <form>`" + ` in NVUE), lint's
RF117 counts the verify forms each platform of a fabric emits (the JSON's ` + "`when`" + ` says on which devices),
and it must be checked on the target release before a push. ` + "`renderers/rendertest`" + ` (TestStatementsSourced)
renders every example and the test fabric on every platform and fails when an emitted form has no row
here, when a verify form is emitted unmarked, or when RF117's count differs from what is emitted; it logs
the counts per platform.

OpenConfig forms are sourced by the YANG model the artifact validates against; whether a vendor implements
a path is that vendor's OpenConfig support matrix, outside this table.
`

// StatementsMarkdown renders the table as docs/statements.md.
func StatementsMarkdown() ([]byte, error) {
	idx, err := loadStatements()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(statementsIntro)
	for _, p := range statementPlatforms {
		fmt.Fprintf(&b, "\n## %s\n\n", p.heading)
		var rows []Statement
		for _, r := range idx.rows {
			if r.Platform == p.id {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			b.WriteString("No rows yet: the renderer's forms are listed here in the same form as they are sourced.\n")
			continue
		}
		slices.SortStableFunc(rows, func(a, b Statement) int { return strings.Compare(a.Form, b.Form) })
		b.WriteString("| form | source | status |\n|---|---|---|\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Form, strings.ReplaceAll(r.Source, "|", `\|`), r.Status)
		}
	}
	return b.Bytes(), nil
}
