package doctor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// A quarantine plan is what doctor --out writes and apply carries out:
// the Slurm drains of the servers its findings name, each one scontrol
// command. It is a plan of its own kind rather than a device plan: the
// scheduler is not a device rocefab configures, and nothing is drained
// until an operator applies the file. Its release plan undoes exactly
// those drains.

// QuarantineFormatVersion is the version of the quarantine plan format
// this package writes and the only one it reads.
const QuarantineFormatVersion = 1

// The kinds of quarantine plan.
const (
	// KindQuarantine drains the servers.
	KindQuarantine = "quarantine"
	// KindRelease undoes a quarantine plan's drains.
	KindRelease = "release"
)

// ReasonPrefix starts the Slurm reason of every drain rocefab sets, so
// that an operator (and sinfo -R) tells them from others.
const ReasonPrefix = "rocefab: "

// Quarantine is a quarantine or release plan.
type Quarantine struct {
	Kind          string `json:"kind"`
	FormatVersion int    `json:"quarantine_format_version"`
	// Rocefab is the version that wrote the plan.
	Rocefab string `json:"rocefab"`
	Fabric  string `json:"fabric"`
	// Intent binds the plan to the intent its servers are named by.
	Intent IntentRef `json:"intent"`
	// Source says where the counters of the findings came from.
	Source string  `json:"source"`
	Drains []Drain `json:"drains"`
	// SHA256 is the digest of everything above (Digest): apply refuses a
	// plan whose content is not what it binds.
	SHA256 string `json:"sha256"`
}

// IntentRef binds a quarantine plan to its intent, as a device plan's
// does: the intent's path relative to the plan file's directory and the
// digest of its files.
type IntentRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Drain is one finding's part of a quarantine plan: the servers it
// drains (Slurm node names are the fabric's server names, as
// slurm/topology.conf has them) and the command that does it.
type Drain struct {
	Kind   string    `json:"kind"`
	Cause  string    `json:"cause"`
	Origin Endpoint  `json:"origin"`
	Peer   *Endpoint `json:"peer,omitempty"`
	Nodes  []string  `json:"nodes"`
	// Reason is the Slurm reason the drain sets.
	Reason string `json:"reason"`
	// Command is what apply runs, as arguments (no shell reads them).
	Command []string `json:"command"`
}

// NewQuarantine makes the quarantine plan of a report: a drain for every
// finding that names servers to drain. It has no drain when no finding
// names one.
func NewQuarantine(rep Report, intent IntentRef, rocefab, source string) *Quarantine {
	q := &Quarantine{Kind: KindQuarantine, FormatVersion: QuarantineFormatVersion, Rocefab: rocefab,
		Fabric: rep.Fabric, Intent: intent, Source: source, Drains: []Drain{}}
	for _, f := range rep.Findings {
		if len(f.Drain) == 0 {
			continue
		}
		d := Drain{Kind: f.Kind, Cause: f.Cause, Origin: f.Origin, Peer: f.Peer, Nodes: slices.Clone(f.Drain),
			Reason: fmt.Sprintf("%s%s %s at %s", ReasonPrefix, f.Kind, f.Cause, f.Origin)}
		d.Command = command(KindQuarantine, d)
		q.Drains = append(q.Drains, d)
	}
	q.SHA256 = q.Digest()
	return q
}

// Release returns the plan that undoes q: the same servers, undrained.
func (q *Quarantine) Release() *Quarantine {
	r := *q
	r.Kind = KindRelease
	r.Drains = make([]Drain, len(q.Drains))
	for i, d := range q.Drains {
		d.Nodes = slices.Clone(d.Nodes)
		d.Command = command(KindRelease, d)
		r.Drains[i] = d
	}
	r.SHA256 = r.Digest()
	return &r
}

// command is the scontrol command of a drain (scontrol(1), "update"
// with NodeName, State and Reason; https://slurm.schedmd.com/scontrol.html).
// A quarantine sets State=DRAIN with its reason: running jobs finish and
// no new one is scheduled there. A release sets State=UNDRAIN, which
// "clears the node from being drained (like RESUME), but will not change
// the node's base state (e.g. DOWN)": it undoes the drain and nothing
// else, where RESUME would also bring back a node someone set DOWN.
// NodeName takes a comma-separated list of names.
func command(kind string, d Drain) []string {
	c := []string{"scontrol", "update", "NodeName=" + strings.Join(d.Nodes, ",")}
	if kind == KindRelease {
		return append(c, "State=UNDRAIN")
	}
	return append(c, "State=DRAIN", "Reason="+d.Reason)
}

// Nodes returns every server the plan drains or releases, sorted.
func (q *Quarantine) Nodes() []string {
	var out []string
	for _, d := range q.Drains {
		out = append(out, d.Nodes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Digest is the SHA-256 of the plan's content without its SHA256 field.
func (q *Quarantine) Digest() string {
	c := *q
	c.SHA256 = ""
	b, _ := json.Marshal(c) // strings, ints and slices of them: never fails
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Write writes q as indented JSON.
func (q *Quarantine) Write(w io.Writer) error {
	b, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// IsQuarantine reports whether the JSON object r starts is a quarantine
// or release plan rather than a device plan: its first key is "kind"
// (Write puts it first), where a device plan's is "format_version". Only
// that key is read, so telling a fabric's large device plan costs nothing.
func IsQuarantine(r io.Reader) bool {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	t, err := dec.Token()
	return err == nil && t == "kind"
}

// ReadQuarantine reads a quarantine or release plan and checks it: its
// format, its kind, every drain's command as its nodes and reason give
// it, and its digest. An edited plan is refused with what differs.
func ReadQuarantine(b []byte) (*Quarantine, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var q Quarantine
	if err := dec.Decode(&q); err != nil {
		return nil, fmt.Errorf("quarantine plan: %w", err)
	}
	if q.FormatVersion != QuarantineFormatVersion {
		return nil, fmt.Errorf("quarantine plan: quarantine_format_version %d: this rocefab reads version %d only; write the plan again with this rocefab",
			q.FormatVersion, QuarantineFormatVersion)
	}
	if q.Kind != KindQuarantine && q.Kind != KindRelease {
		return nil, fmt.Errorf("quarantine plan: kind %q: allowed are %s, %s", q.Kind, KindQuarantine, KindRelease)
	}
	for i, d := range q.Drains {
		if len(d.Nodes) == 0 {
			return nil, fmt.Errorf("quarantine plan: drain %d (%s at %s) names no node", i+1, d.Cause, d.Origin)
		}
		if !strings.HasPrefix(d.Reason, ReasonPrefix) {
			return nil, fmt.Errorf("quarantine plan: drain %d: reason %q: allowed is a reason starting with %q", i+1, d.Reason, ReasonPrefix)
		}
		for _, n := range d.Nodes {
			if n == "" || strings.ContainsAny(n, ", \t\n=\"[]") {
				return nil, fmt.Errorf("quarantine plan: drain %d: node %q: allowed is a server name without spaces, commas, brackets, quotes or '='", i+1, n)
			}
		}
		if want := command(q.Kind, d); !slices.Equal(d.Command, want) {
			return nil, fmt.Errorf("quarantine plan: drain %d: the plan runs %q where its nodes and reason give %q: the plan file was edited; write it again with rocefab doctor",
				i+1, strings.Join(d.Command, " "), strings.Join(want, " "))
		}
	}
	if got := q.Digest(); got != q.SHA256 {
		return nil, fmt.Errorf("quarantine plan: its content has digest %s, the plan binds %s: the plan file was edited; write it again with rocefab doctor", got, q.SHA256)
	}
	return &q, nil
}

// Check refuses a plan that does not fit fab: a fabric of another name,
// a node that is not one of its servers, or a server that is neither the
// drain's origin nor at the other end of its cable.
func (q *Quarantine) Check(fab *ir.Fabric) error {
	if q.Fabric != fab.Name {
		return fmt.Errorf("the quarantine plan is for fabric %s, the intent is fabric %s", q.Fabric, fab.Name)
	}
	servers := make(map[string]bool)
	for _, d := range fab.Devices {
		if d.Host != nil {
			servers[d.Name] = true
		}
	}
	var errs []error
	for i, d := range q.Drains {
		for _, n := range d.Nodes {
			switch {
			case !servers[n]:
				errs = append(errs, fmt.Errorf("drain %d: node %s is not a server of fabric %s", i+1, n, fab.Name))
			case n != d.Origin.Device && (d.Peer == nil || n != d.Peer.Device):
				errs = append(errs, fmt.Errorf("drain %d: node %s is neither the origin %s of the finding nor the other end of its cable", i+1, n, d.Origin))
			}
		}
	}
	return errors.Join(errs...)
}
