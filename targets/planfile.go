package targets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/rocefab/rocefab/renderers"
)

// PlanFormatVersion is the version of the plan file format this package
// writes and the only one it reads. Change it whenever a field changes
// meaning or a reader of the old format would misread a new file.
const PlanFormatVersion = 1

// FormatError says that a plan file is of a format this rocefab does not
// read.
type FormatError struct {
	Version int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("plan file format version %d: this rocefab reads version %d only; make the plan again with this rocefab",
		e.Version, PlanFormatVersion)
}

// planFile is the plan file's JSON: the plan and, for readers that want
// the counts without counting, its summary (ignored when read back).
type planFile struct {
	*Plan
	Summary *Summary `json:"summary,omitempty"`
}

// WritePlan writes p as the plan file: indented JSON, deterministic for
// the same plan.
func WritePlan(w io.Writer, p *Plan) error {
	q := *p
	q.FormatVersion = PlanFormatVersion
	s := q.Summary()
	b, err := json.MarshalIndent(planFile{Plan: &q, Summary: &s}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the plan: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadPlan reads a plan file. It refuses a file of another format version
// with a *FormatError, and a file with fields this version does not know.
func ReadPlan(r io.Reader) (*Plan, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var head struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("not a plan file: %w", err)
	}
	if head.FormatVersion == nil {
		return nil, errors.New("not a plan file: it has no format_version")
	}
	if *head.FormatVersion != PlanFormatVersion {
		return nil, &FormatError{Version: *head.FormatVersion}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&planFile{Plan: &p}); err != nil {
		return nil, fmt.Errorf("plan file: %w", err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("plan file: %w", err)
	}
	return &p, nil
}

// check refuses a plan that apply could misread: a device twice, a change
// without its remediation or digest, an unknown action.
func (p *Plan) check() error {
	seen := make(map[string]bool, len(p.Devices))
	for _, d := range p.Devices {
		if d.Device == "" {
			return errors.New("a device without a name")
		}
		if seen[d.Device] {
			return fmt.Errorf("device %s appears twice", d.Device)
		}
		seen[d.Device] = true
		switch d.Action {
		case Create, Update:
			if d.Remediation == nil || d.Running == nil {
				return fmt.Errorf("device %s: action %s without its remediation and running digest", d.Device, d.Action)
			}
		case NoOp, Unreachable, Unsupported, Failed:
		default:
			return fmt.Errorf("device %s: action %q: allowed are create, update, no-op, unreachable, unsupported, error", d.Device, d.Action)
		}
	}
	return nil
}

// Remediation is a renderers.Remediation as a plan keeps it: its content
// is written as text when it is UTF-8 (CLI lines, JSON patches, so that a
// plan file can be reviewed) and as base64 otherwise (a binary SetRequest).
type Remediation struct {
	Format  renderers.Format
	Content []byte
}

// Remediation returns r as the platforms and targets take it.
func (r *Remediation) Remediation() renderers.Remediation {
	return renderers.Remediation{Format: r.Format, Content: r.Content}
}

type remediationJSON struct {
	Format renderers.Format `json:"format"`
	Text   *string          `json:"text,omitempty"`
	Base64 *string          `json:"base64,omitempty"`
}

// MarshalJSON writes r with its content as text or base64.
func (r Remediation) MarshalJSON() ([]byte, error) {
	j := remediationJSON{Format: r.Format}
	if utf8.Valid(r.Content) {
		j.Text = new(string(r.Content))
	} else {
		j.Base64 = new(base64.StdEncoding.EncodeToString(r.Content))
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Remediation) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j remediationJSON
	if err := dec.Decode(&j); err != nil {
		return err
	}
	r.Format = j.Format
	switch {
	case j.Text != nil && j.Base64 != nil:
		return errors.New("remediation has both text and base64")
	case j.Text != nil:
		r.Content = []byte(*j.Text)
	case j.Base64 != nil:
		c, err := base64.StdEncoding.DecodeString(*j.Base64)
		if err != nil {
			return fmt.Errorf("remediation base64: %w", err)
		}
		r.Content = c
	default:
		r.Content = nil
	}
	return nil
}
