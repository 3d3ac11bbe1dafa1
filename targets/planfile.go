package targets

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rocefab/rocefab/renderers"
)

// PlanFormatVersion is the version of the plan file format this package
// writes and the only one it reads. Change it whenever a field changes
// meaning or a reader of the old format would misread a new file.
// Version 2 keeps devices' changes and remediations once per shape
// (planpack.go); version 3 records each device's desired state beside
// them, shared by shape too (DevicePlan.Desired).
const PlanFormatVersion = 3

// FormatError says that a plan file is of a format this rocefab does not
// read.
type FormatError struct {
	Version int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("plan file format version %d: this rocefab reads version %d only; make the plan again with this rocefab",
		e.Version, PlanFormatVersion)
}

// deviceJSON is a device as a plan file keeps it: its plan, with its
// changes and remediation (Body) and its desired state (Desired) by
// reference rather than inline.
type deviceJSON struct {
	DevicePlan
	// Changes and Remediation hide the device plan's: a file carries
	// them in Body, and refuses them inline.
	Changes     []renderers.Change `json:"changes,omitempty"`
	Remediation *Remediation       `json:"remediation,omitempty"`
	Body        *bodyRef           `json:"body,omitempty"`
	Desired     *bodyRef           `json:"desired,omitempty"`
}

// planFileJSON is a plan file read whole.
type planFileJSON struct {
	PlanHead
	Shapes []shapeJSON `json:"shapes"`
	// DesiredShapes are the shapes of the devices' desired states.
	DesiredShapes []stateShapeJSON `json:"desired_shapes"`
	Devices       []deviceJSON     `json:"devices"`
	// Summary is for readers that want the counts without counting;
	// ignored when read back.
	Summary json.RawMessage `json:"summary,omitempty"`
}

// WritePlan writes p as the plan file: indented JSON, deterministic for
// the same plan, each device's changes and remediation, and its desired
// state, kept once per shape. It is written as it is encoded, one shape
// or device at a time.
func WritePlan(w io.Writer, p *Plan) error {
	// Shared again in the order of the devices, whatever order they
	// were shared in when planned: the same plan gives the same file.
	k := NewShapes()
	refs := make([]*bodyRef, len(p.Devices))
	desired := make([]*bodyRef, len(p.Devices))
	for i := range p.Devices {
		d := &p.Devices[i]
		var err error
		if d.HasBody() {
			refs[i], err = repack(k, *d, d.Shared, false, d.rawBody)
		}
		if err == nil && d.HasDesired() {
			desired[i], err = repack(k, *d, d.SharedDesired, true, func() ([]byte, error) { return encodeElements(d.Desired), nil })
		}
		if err != nil {
			return fmt.Errorf("encoding the plan: %w", err)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	h := p.PlanHead
	h.FormatVersion = PlanFormatVersion
	head, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the plan: %w", err)
	}
	bw.Write(head[:len(head)-2]) // without its closing "\n}"
	list := func(name string, n int, item func(i int) any) error {
		fmt.Fprintf(bw, ",\n  %q: [", name)
		for i := range n {
			b, err := json.MarshalIndent(item(i), "    ", "  ")
			if err != nil {
				return fmt.Errorf("encoding the plan: %w", err)
			}
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			bw.Write(b)
		}
		if n > 0 {
			bw.WriteString("\n  ")
		}
		bw.WriteString("]")
		return nil
	}
	var bodies, states []*shape
	for _, s := range k.shapes {
		if s.state {
			states = append(states, s)
		} else {
			bodies = append(bodies, s)
		}
	}
	err = list("shapes", len(bodies), func(i int) any {
		s := bodies[i]
		var b body
		// The shape's own bytes, decoded back: its digest is of them.
		_ = json.Unmarshal(s.raw, &b)
		return shapeJSON{SHA256: s.id, Changes: b.Changes, Remediation: b.Remediation}
	})
	if err != nil {
		return err
	}
	err = list("desired_shapes", len(states), func(i int) any {
		s := states[i]
		es, ok := decodeElements(s.raw)
		if !ok {
			es = []renderers.Element{}
			_ = json.Unmarshal(s.raw, &es)
		}
		return stateShapeJSON{SHA256: s.id, Elements: es}
	})
	if err != nil {
		return err
	}
	err = list("devices", len(p.Devices), func(i int) any {
		d := p.Devices[i]
		d.Changes, d.Remediation, d.Shared, d.Desired, d.SharedDesired = nil, nil, nil, nil, nil
		return deviceJSON{DevicePlan: d, Body: refs[i], Desired: desired[i]}
	})
	if err != nil {
		return err
	}
	sum, err := json.MarshalIndent(p.Summary(), "  ", "  ")
	if err != nil {
		return fmt.Errorf("encoding the plan: %w", err)
	}
	bw.WriteString(",\n  \"summary\": ")
	bw.Write(sum)
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// repack packs a device's body (its desired state when state is set)
// into k for writing: the bytes encode gives, or, for a device that
// shares them, those rebuilt from its shape, checked against their digest
// as they are rebuilt, which is then not computed again (nor are their
// tokens counted: they are the shape's).
func repack(k *Shapes, d DevicePlan, shared *Shared, state bool, encode func() ([]byte, error)) (*bodyRef, error) {
	if shared == nil {
		raw, err := encode()
		if err != nil {
			return nil, err
		}
		return k.pack(d, raw, "", -1, state)
	}
	raw, tokens, err := shared.shapes.rawTokens(d.Device, &shared.ref, state)
	if err != nil {
		return nil, err
	}
	return k.pack(d, raw, shared.ref.SHA256, tokens, state)
}

// ReadPlan reads a plan file, each device with its changes, remediation
// and desired state. It refuses a file of another format version with a
// *FormatError, a file with fields this version does not know, and a
// device whose changes, remediation or desired state are not those its
// digest binds.
func ReadPlan(r io.Reader) (*Plan, error) {
	p, err := ReadSharedPlan(r)
	if err != nil {
		return nil, err
	}
	for i := range p.Devices {
		d := &p.Devices[i]
		if d.Shared != nil {
			cs, rem, err := d.Body()
			if err != nil {
				return nil, fmt.Errorf("plan file: %w", err)
			}
			d.Changes, d.Remediation, d.Shared = cs, rem, nil
		}
		if d.SharedDesired != nil {
			es, err := d.DesiredState()
			if err != nil {
				return nil, fmt.Errorf("plan file: %w", err)
			}
			d.Desired, d.SharedDesired = es, nil
		}
	}
	return p, nil
}

// ReadSharedPlan reads a plan file as ReadPlan does, and checks it as
// much, but keeps the devices' changes, remediations and desired states
// shared by shape (DevicePlan.Shared and Body, SharedDesired and
// DesiredState): a fabric's plan in the memory of its file, not of every
// device's text.
func ReadSharedPlan(r io.Reader) (*Plan, error) {
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
	var f planFileJSON
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("plan file: %w", err)
	}
	b = nil
	k := NewShapes()
	if err := k.addShapes(f.Shapes); err != nil {
		return nil, fmt.Errorf("plan file: %w", err)
	}
	if err := k.addStates(f.DesiredShapes); err != nil {
		return nil, fmt.Errorf("plan file: %w", err)
	}
	f.Shapes, f.DesiredShapes = nil, nil
	p := &Plan{PlanHead: f.PlanHead, Devices: make([]DevicePlan, len(f.Devices))}
	for i := range f.Devices {
		d := &f.Devices[i]
		if d.Changes != nil || d.Remediation != nil {
			return nil, fmt.Errorf("plan file: device %s: changes or a remediation inline: this format keeps them in the device's body", d.Device)
		}
		dp := d.DevicePlan
		if d.Body != nil {
			// Every device's body against its digest, before anything
			// reads it.
			raw, err := k.raw(d.Device, d.Body, false)
			if err != nil {
				return nil, fmt.Errorf("plan file: %w", err)
			}
			if dp.Action.Changes() && bytes.HasSuffix(raw, []byte(`,"remediation":null}`)) {
				return nil, fmt.Errorf("plan file: device %s: action %s without its remediation", d.Device, dp.Action)
			}
			dp.Shared = &Shared{shapes: k, ref: *d.Body}
		}
		if d.Desired != nil {
			if _, err := k.raw(d.Device, d.Desired, true); err != nil {
				return nil, fmt.Errorf("plan file: %w", err)
			}
			dp.SharedDesired = &Shared{shapes: k, ref: *d.Desired}
		}
		p.Devices[i] = dp
		*d = deviceJSON{}
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("plan file: %w", err)
	}
	return p, nil
}

// check refuses a plan that apply could misread: a device twice, a change
// without its remediation or digest, a device diffed without its desired
// state, an unknown action.
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
		case Create, Update, NoOp:
			if d.Action.Changes() && ((d.Remediation == nil && d.Shared == nil) || d.Running == nil) {
				return fmt.Errorf("device %s: action %s without its remediation and running digest", d.Device, d.Action)
			}
			if !d.HasDesired() {
				return fmt.Errorf("device %s: action %s without its desired state", d.Device, d.Action)
			}
		case Unreachable, Unsupported, Failed:
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
	return r.appendJSON(make([]byte, 0, len(r.Content)+len(r.Content)/16+64)), nil
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
