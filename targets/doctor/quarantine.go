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
	"github.com/rocefab/rocefab/renderers"
)

// A quarantine plan is what doctor --out writes and apply carries out:
// the Slurm drains of the servers its findings name, each one scontrol
// command, the cordons and taints of their Kubernetes nodes, each a
// kubectl command (quarantine_kube.go), and the switch ports its
// findings' faulty cables are shut at, each set administratively down
// through the switch's transport with commit-confirm
// (quarantine_shut.go). It is a plan of its own kind rather than a device
// plan: a scheduler is not a device rocefab configures, a shut is an
// operator's action on one interface that no intent holds, and nothing is
// drained, cordoned or shut until an operator applies the file. Its
// release plan undoes exactly those drains, and uncordons, untaints and
// brings up exactly the nodes and ports the quarantine's apply changed.

// QuarantineFormatVersion is the version of the quarantine plan format
// this package writes and the only one it reads.
// Version 2 added the link shuts, version 3 the Kubernetes nodes,
// version 4 the evidence and the plan a release releases.
const QuarantineFormatVersion = 4

// FormatError says that a quarantine plan is of a format this rocefab
// does not read, as targets.FormatError says of a device plan.
type FormatError struct {
	Version int
}

// Error says the version and the one this rocefab reads.
func (e *FormatError) Error() string {
	return fmt.Sprintf("quarantine_format_version %d: this rocefab reads version %d only; write the plan again with this rocefab",
		e.Version, QuarantineFormatVersion)
}

// The kinds of quarantine plan.
const (
	// KindQuarantine drains the servers and shuts the ports.
	KindQuarantine = "quarantine"
	// KindRelease undoes a quarantine plan's drains and shuts.
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
	Source string `json:"source"`
	// Evidence is what the plan was diagnosed from, which apply
	// diagnoses again (evidence.go).
	Evidence PlanEvidence `json:"evidence"`
	// Releases is the quarantine plan a release undoes; nil in a
	// quarantine.
	Releases *PlanRef `json:"releases,omitempty"`
	// Drains are the Slurm drains (none when the plan drains in
	// Kubernetes only).
	Drains []Drain `json:"drains"`
	// Cordons are the Kubernetes nodes the plan cordons and taints (a
	// quarantine) or uncordons and untaints (a release); none unless
	// doctor was asked to drain in Kubernetes.
	Cordons []Cordon `json:"cordons"`
	// Shuts are the switch ports the plan sets administratively down (a
	// quarantine) or up (a release).
	Shuts []Shut `json:"shuts"`
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

// Shut is one finding's link shut: the switch end of its faulty cable,
// which a quarantine sets administratively down and its release up. It
// touches the administrative state of that one interface and nothing
// else.
type Shut struct {
	Kind   string    `json:"kind"`
	Cause  string    `json:"cause"`
	Origin Endpoint  `json:"origin"`
	Peer   *Endpoint `json:"peer,omitempty"`
	// Port is the switch port.
	Port Endpoint `json:"port"`
	// Admin is the administrative state apply sets: down in a
	// quarantine, up in a release.
	Admin renderers.AdminState `json:"admin"`
}

// NewQuarantine makes the quarantine plan of a report that drains its
// servers in Slurm: a drain for every finding that names servers to
// drain, and a shut for every finding that names a switch port to shut (a
// port once, for the first finding that names it). It has neither when
// no finding names one.
func NewQuarantine(rep Report, intent IntentRef, rocefab, source string) *Quarantine {
	q, _ := NewQuarantineIn(rep, intent, rocefab, source, []string{SchedulerSlurm}) // Slurm takes any server name
	return q
}

// NewQuarantineIn makes the quarantine plan of a report that drains its
// servers in the schedulers given (Schedulers): in Slurm as NewQuarantine
// does, in Kubernetes by cordoning and tainting each drained server's
// node. An error names a scheduler that is none of Schedulers, or a server
// with no Kubernetes node name.
func NewQuarantineIn(rep Report, intent IntentRef, rocefab, source string, schedulers []string) (*Quarantine, error) {
	q := &Quarantine{Kind: KindQuarantine, FormatVersion: QuarantineFormatVersion, Rocefab: rocefab,
		Fabric: rep.Fabric, Intent: intent, Source: source, Evidence: PlanEvidence{Drain: slices.Clone(schedulers), PauseRate: DefaultOptions().PauseRate},
		Drains: []Drain{}, Cordons: []Cordon{}, Shuts: []Shut{}}
	slurm := false
	for _, s := range schedulers {
		switch s {
		case SchedulerSlurm:
			slurm = true
		case SchedulerKubernetes:
			var err error
			if q.Cordons, err = cordons(rep); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("scheduler %q: allowed are %s", s, strings.Join(Schedulers, ", "))
		}
	}
	shut := map[Endpoint]bool{}
	for _, f := range rep.Findings {
		if f.Shut != nil && !shut[*f.Shut] {
			shut[*f.Shut] = true
			q.Shuts = append(q.Shuts, Shut{Kind: f.Kind, Cause: f.Cause, Origin: f.Origin, Peer: f.Peer, Port: *f.Shut, Admin: renderers.AdminDown})
		}
		if len(f.Drain) == 0 || !slurm {
			continue
		}
		d := Drain{Kind: f.Kind, Cause: f.Cause, Origin: f.Origin, Peer: f.Peer, Nodes: slices.Clone(f.Drain),
			Reason: fmt.Sprintf("%s%s %s at %s", ReasonPrefix, f.Kind, f.Cause, f.Origin)}
		d.Command = command(KindQuarantine, d)
		q.Drains = append(q.Drains, d)
	}
	q.SHA256 = q.Digest()
	return q, nil
}

// Release returns the plan that undoes q: the same servers, undrained,
// the nodes nodes (what applying q did to them) says q cordoned or
// tainted, uncordoned or untainted, and up again the ports ports says q
// shut; a node cordoned or a port down before the quarantine stays so. A
// nil record (q was never applied here) releases no node or no port. The
// release names q by its digest; its path is the writer's to set.
func (q *Quarantine) Release(ports *ShutRecord, nodes *NodeRecord) *Quarantine {
	r := *q
	r.Kind = KindRelease
	r.Releases = &PlanRef{SHA256: q.SHA256}
	r.Drains = make([]Drain, len(q.Drains))
	for i, d := range q.Drains {
		d.Nodes = slices.Clone(d.Nodes)
		d.Command = command(KindRelease, d)
		r.Drains[i] = d
	}
	r.Cordons = q.releaseCordons(nodes)
	r.Shuts = []Shut{}
	for _, s := range q.Shuts {
		if ports.shut(s.Port) {
			s.Admin = renderers.AdminUp
			r.Shuts = append(r.Shuts, s)
		}
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
func (q *Quarantine) Write(w io.Writer) error { return writeIndented(w, q) }

// writeIndented writes v as indented JSON and a newline.
func writeIndented(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
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
// it, every Kubernetes node's commands as its server and finding give
// them, and its digest. An edited plan is refused with what differs.
func ReadQuarantine(b []byte) (*Quarantine, error) {
	// The version first: a plan of another version may hold fields this
	// one does not know, which the strict decoding below would name
	// instead.
	var head struct {
		FormatVersion int `json:"quarantine_format_version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("quarantine plan: %w", err)
	}
	if head.FormatVersion != QuarantineFormatVersion {
		return nil, fmt.Errorf("quarantine plan: %w", &FormatError{Version: head.FormatVersion})
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var q Quarantine
	if err := dec.Decode(&q); err != nil {
		return nil, fmt.Errorf("quarantine plan: %w", err)
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
	if err := q.readCordons(); err != nil {
		return nil, err
	}
	if err := q.readShuts(); err != nil {
		return nil, err
	}
	if err := q.readEvidence(); err != nil {
		return nil, err
	}
	if got := q.Digest(); got != q.SHA256 {
		return nil, fmt.Errorf("quarantine plan: its content has digest %s, the plan binds %s: the plan file was edited; write it again with rocefab doctor", got, q.SHA256)
	}
	return &q, nil
}

// Check refuses a plan that does not fit fab: a fabric of another name,
// a node (Slurm's or Kubernetes') that is not one of its servers, a
// server that is neither the finding's origin nor at the other end of its
// cable, or a shut port that is not the switch end of the finding's cable
// in the model.
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
	errs = append(errs, q.checkCordons(servers, fab.Name)...)
	errs = append(errs, q.checkShuts(fab)...)
	return errors.Join(errs...)
}
