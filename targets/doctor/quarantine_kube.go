package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/rocefab/rocefab/renderers/scheduler"
	"github.com/rocefab/rocefab/targets"
)

// A quarantine keeps new Kubernetes pods off the servers it drains when
// the operator asks for it (doctor --drain kubernetes): each server's
// node, named as build names it (the server name in lower case, as the
// kubelet registers it; renderers/scheduler), is cordoned and tainted.
// apply runs kubectl, which finds the cluster and its credentials as it
// always does (KUBECONFIG, ~/.kube/config), and no shell: the commands are
// argument vectors. It reads every node before it changes any, so that a
// server with no node in the cluster stops the apply before anything is
// cordoned, and records what it found and did beside the plan
// (NodeRecord): the release uncordons only the nodes this quarantine
// cordoned and removes only the taints it added, so that a node someone
// else cordoned stays cordoned.
//
// The commands, from kubectl's reference (kubernetes.io/docs/reference/
// kubectl/generated/kubectl_cordon, kubectl_uncordon, kubectl_taint):
//
//	kubectl cordon NODE                                  "Mark node as unschedulable"
//	kubectl taint nodes NODE KEY=VALUE:NoSchedule         "A taint consists of a key, value, and effect"
//	kubectl taint nodes NODE KEY:NoSchedule-              "Remove from node 'foo' the taint with key 'dedicated' and effect 'NoSchedule' if one exists"
//	kubectl uncordon NODE                                "Mark node as schedulable"
//	kubectl get node NODE -o json                        the Node object: spec.unschedulable, spec.taints[] {key, value, effect}
//
// The Node's fields are k8s.io/api@v0.34.4 core/v1/types.go (NodeSpec:
// `unschedulable,omitempty`, "Unschedulable controls node schedulability
// of new pods"; `taints,omitempty`; Taint: key, value, effect).

// The schedulers a quarantine drains its servers in (doctor --drain).
const (
	// SchedulerSlurm drains the servers with scontrol.
	SchedulerSlurm = "slurm"
	// SchedulerKubernetes cordons and taints the servers' nodes with
	// kubectl.
	SchedulerKubernetes = "kubernetes"
)

// Schedulers are the schedulers a quarantine can drain its servers in.
var Schedulers = []string{SchedulerSlurm, SchedulerKubernetes}

// TaintKey is the key of the taint a quarantine puts on the nodes it
// cordons, under rocefab's own label prefix: its value is the finding's
// kind, so that kubectl describe node says why.
const TaintKey = scheduler.LabelPrefix + "quarantine"

// TaintEffect is the taint's effect: no new pod lands on the node unless
// it tolerates the taint; running pods stay, as a Slurm drain lets running
// jobs finish.
const TaintEffect = "NoSchedule"

// Cordon is one Kubernetes node of a quarantine plan: the node of a
// server a finding drains, cordoned and tainted by a quarantine, and in
// its release uncordoned and untainted where the quarantine did it. A
// node is named once, for the first finding that names its server.
type Cordon struct {
	Kind   string    `json:"kind"`
	Cause  string    `json:"cause"`
	Origin Endpoint  `json:"origin"`
	Peer   *Endpoint `json:"peer,omitempty"`
	// Server is the fabric's server; Node its Kubernetes node.
	Server string `json:"server"`
	Node   string `json:"node"`
	// Cordon says that the plan cordons the node (a quarantine) or
	// uncordons it (a release); Taint that it adds (removes) the taint.
	// A quarantine does both; a release what its quarantine did.
	Cordon bool `json:"cordon"`
	Taint  bool `json:"taint"`
	// Commands are what apply runs, in order, as arguments (no shell
	// reads them); a command whose change the node shows already is not
	// run.
	Commands [][]string `json:"commands"`
}

// kubeCommands returns the commands of a node: its cordon (or uncordon)
// and its taint (or the taint's removal), nil where the plan does not
// change that.
func kubeCommands(kind string, c Cordon) (cordon, taint []string) {
	if kind == KindRelease {
		if c.Cordon {
			cordon = []string{"kubectl", "uncordon", c.Node}
		}
		if c.Taint {
			taint = []string{"kubectl", "taint", "nodes", c.Node, TaintKey + ":" + TaintEffect + "-"}
		}
		return cordon, taint
	}
	if c.Cordon {
		cordon = []string{"kubectl", "cordon", c.Node}
	}
	if c.Taint {
		taint = []string{"kubectl", "taint", "nodes", c.Node, TaintKey + "=" + c.Kind + ":" + TaintEffect}
	}
	return cordon, taint
}

// commandsOf returns a node's commands in the order apply runs them: a
// quarantine cordons before it taints, a release removes the taint before
// it uncordons.
func commandsOf(kind string, c Cordon) [][]string {
	cordon, taint := kubeCommands(kind, c)
	order := [][]string{cordon, taint}
	if kind == KindRelease {
		order = [][]string{taint, cordon}
	}
	out := [][]string{}
	for _, cmd := range order {
		if cmd != nil {
			out = append(out, cmd)
		}
	}
	return out
}

// cordons returns the nodes of the report's drained servers, each once,
// in the order of the findings: an error names a server whose name is no
// Kubernetes node name.
func cordons(rep Report) ([]Cordon, error) {
	out := []Cordon{}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		for _, s := range f.Drain {
			if seen[s] {
				continue
			}
			seen[s] = true
			node, ok := scheduler.NodeName(s)
			if !ok {
				return nil, fmt.Errorf("server %s has no Kubernetes node name: %q is not a lower-case RFC 1123 subdomain (letters, digits, '-' and '.', at most 253 characters), the name a kubelet registers; drain it in Slurm only (--drain slurm)", s, node)
			}
			c := Cordon{Kind: f.Kind, Cause: f.Cause, Origin: f.Origin, Peer: f.Peer, Server: s, Node: node, Cordon: true, Taint: true}
			c.Commands = commandsOf(KindQuarantine, c)
			out = append(out, c)
		}
	}
	return out, nil
}

// isTaintValue reports whether s is a taint value as kubectl takes it:
// "it must begin with a letter or number, and may contain letters,
// numbers, hyphens, dots, and underscores, up to 63 characters"
// (kubectl_taint); the API server also wants it to end with a letter or
// number, as a label value.
func isTaintValue(s string) bool {
	if s == "" || len(s) > 63 || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '.' && c != '_' {
			return false
		}
	}
	return true
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// readCordons checks the nodes of a plan read from a file: each node is
// its server's, once, with the taint value and the commands its kind and
// finding give.
func (q *Quarantine) readCordons() error {
	seen := map[string]bool{}
	for i, c := range q.Cordons {
		node, ok := scheduler.NodeName(c.Server)
		switch {
		case c.Server == "":
			return fmt.Errorf("quarantine plan: cordon %d (%s at %s) names no server", i+1, c.Cause, c.Origin)
		case !ok || c.Node != node:
			return fmt.Errorf("quarantine plan: cordon %d: node %q: the node of server %s is %q: the plan file was edited; write it again with rocefab doctor", i+1, c.Node, c.Server, node)
		case seen[c.Node]:
			return fmt.Errorf("quarantine plan: cordon %d: node %s is named twice", i+1, c.Node)
		case !isTaintValue(c.Kind):
			return fmt.Errorf("quarantine plan: cordon %d: kind %q: allowed is a taint value (letters, digits, '-', '.', '_', alphanumeric at both ends, at most 63 characters)", i+1, c.Kind)
		case q.Kind == KindQuarantine && (!c.Cordon || !c.Taint):
			return fmt.Errorf("quarantine plan: cordon %d: node %s: a quarantine plan cordons and taints each node (cordon and taint true)", i+1, c.Node)
		case q.Kind == KindRelease && !c.Cordon && !c.Taint:
			return fmt.Errorf("quarantine plan: cordon %d: node %s: a release plan uncordons or untaints each node it names (cordon or taint true)", i+1, c.Node)
		}
		seen[c.Node] = true
		if want := commandsOf(q.Kind, c); !slices.EqualFunc(c.Commands, want, slices.Equal) {
			return fmt.Errorf("quarantine plan: cordon %d: the plan runs %q where its node, kind and state give %q: the plan file was edited; write it again with rocefab doctor",
				i+1, joinCommands(c.Commands), joinCommands(want))
		}
	}
	return nil
}

// joinCommands prints commands for an error, separated by "; ".
func joinCommands(cmds [][]string) string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = strings.Join(c, " ")
	}
	return strings.Join(out, "; ")
}

// checkCordons refuses every node whose server is not a server of the
// fabric, or is neither the finding's origin nor the other end of its
// cable: the same rule as the Slurm drains'.
func (q *Quarantine) checkCordons(servers map[string]bool, fabric string) []error {
	var errs []error
	for i, c := range q.Cordons {
		switch {
		case !servers[c.Server]:
			errs = append(errs, fmt.Errorf("cordon %d: node %s: %s is not a server of fabric %s", i+1, c.Node, c.Server, fabric))
		case c.Server != c.Origin.Device && (c.Peer == nil || c.Server != c.Peer.Device):
			errs = append(errs, fmt.Errorf("cordon %d: node %s: server %s is neither the origin %s of the finding nor the other end of its cable", i+1, c.Node, c.Server, c.Origin))
		}
	}
	return errs
}

// KubeNodes returns the Kubernetes nodes the plan cordons or releases,
// sorted.
func (q *Quarantine) KubeNodes() []string {
	out := make([]string, len(q.Cordons))
	for i, c := range q.Cordons {
		out[i] = c.Node
	}
	slices.Sort(out)
	return out
}

// NodeState is what a node's spec says of a quarantine: whether it is
// cordoned (spec.unschedulable) and whether it carries a taint of key
// TaintKey with effect TaintEffect, whatever its value.
type NodeState struct {
	Unschedulable bool `json:"unschedulable"`
	Tainted       bool `json:"tainted"`
}

// String says the state in words, for reports.
func (s NodeState) String() string {
	c, t := "schedulable", "untainted"
	if s.Unschedulable {
		c = "cordoned"
	}
	if s.Tainted {
		t = "tainted " + TaintKey + ":" + TaintEffect
	}
	return c + ", " + t
}

// NodeStateOf reads the state of node from the Node object kubectl get
// node NODE -o json prints; an error when the object is not that node.
func NodeStateOf(b []byte, node string) (NodeState, error) {
	var n struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Unschedulable bool `json:"unschedulable"`
			Taints        []struct {
				Key    string `json:"key"`
				Value  string `json:"value"`
				Effect string `json:"effect"`
			} `json:"taints"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b, &n); err != nil {
		return NodeState{}, fmt.Errorf("node %s: reading kubectl's JSON: %w", node, err)
	}
	if n.Kind != "Node" || n.Metadata.Name != node {
		return NodeState{}, fmt.Errorf("node %s: kubectl printed a %s named %q, not the Node %s", node, n.Kind, n.Metadata.Name, node)
	}
	st := NodeState{Unschedulable: n.Spec.Unschedulable}
	for _, t := range n.Spec.Taints {
		if t.Key == TaintKey && t.Effect == TaintEffect {
			st.Tainted = true
		}
	}
	return st, nil
}

// Kubectl is how apply reaches the Kubernetes API: the kubectl program,
// which finds the cluster and its credentials as it always does, and the
// kubeconfig context to use.
type Kubectl struct {
	// Path is the kubectl program.
	Path string
	// Context, when set, is passed as --context.
	Context string
	// Timeout bounds each kubectl command (apply's --timeout).
	Timeout time.Duration
	// Event, when set, is told each node's outcome as it is known.
	Event func(NodeOutcome)
}

// NodeOutcome is what apply did to one node.
type NodeOutcome struct {
	Node   string `json:"node"`
	Server string `json:"server"`
	// Before is the state read before anything ran (nil when it was not
	// read).
	Before *NodeState `json:"before,omitempty"`
	// Ran are the commands that ran and succeeded, in order.
	Ran [][]string `json:"ran"`
	// State is applied (every change made and read back), unchanged (the
	// node showed them already), unknown (a command failed or the node
	// does not read back as it should: Ran says what was done) or
	// untouched (not reached, or its first command failed and it reads
	// as before).
	State  targets.State `json:"state"`
	Reason string        `json:"reason,omitempty"`
}

// UntouchedNodes returns the outcome of every node of q before anything
// is done: untouched.
func (q *Quarantine) UntouchedNodes() []NodeOutcome {
	out := make([]NodeOutcome, len(q.Cordons))
	for i, c := range q.Cordons {
		out[i] = NodeOutcome{Node: c.Node, Server: c.Server, Ran: [][]string{}, State: targets.Untouched}
	}
	return out
}

// SetNodes reads every node of q, then cordons and taints (or in a
// release, untaints and uncordons) one node after the other, running only
// the commands whose change the node does not show yet, and reads each
// back. A node that cannot be read (one missing in the cluster) stops it
// before any node is changed; otherwise it stops at the first node not
// applied or unchanged, and the nodes after it are untouched. The error
// says where it stopped; the outcomes list every node.
func (q *Quarantine) SetNodes(ctx context.Context, k Kubectl) ([]NodeOutcome, error) {
	out := q.UntouchedNodes()
	before := make([]NodeState, len(q.Cordons))
	for i, c := range q.Cordons {
		st, err := k.Read(ctx, c.Node)
		if err != nil {
			out[i].Reason = err.Error()
			return out, fmt.Errorf("no node was changed: server %s: %w", c.Server, err)
		}
		before[i] = st
	}
	for i, c := range q.Cordons {
		out[i] = k.set(ctx, q.Kind, c, before[i])
		if k.Event != nil {
			k.Event(out[i])
		}
		if st := out[i].State; st != targets.Applied && st != targets.Unchanged {
			for j := i + 1; j < len(out); j++ {
				out[j].Reason = fmt.Sprintf("not reached: apply stopped at node %s", c.Node)
			}
			return out, fmt.Errorf("stopped at node %d of %d, %s: %s: %s; the nodes before it are set", i+1, len(out), c.Node, st, out[i].Reason)
		}
	}
	return out, nil
}

// set changes one node from before as its plan entry says, and reads it
// back.
func (k Kubectl) set(ctx context.Context, kind string, c Cordon, before NodeState) NodeOutcome {
	o := NodeOutcome{Node: c.Node, Server: c.Server, Before: &before, Ran: [][]string{}, State: targets.Untouched}
	cordon, taint := kubeCommands(kind, c)
	// Each command to run, with the state it sets; a command is taken
	// as done only when the node reads so after it: kubectl cordon and
	// uncordon exit 0 when the API server refuses the change (k8s.io/
	// kubectl@v0.34.4 pkg/cmd/drain/drain.go, RunCordonOrUncordon prints
	// "error: unable to cordon node" and returns nil).
	type step struct {
		cmd  []string
		done func(NodeState) bool
	}
	want := before
	var todo []step
	if kind == KindRelease {
		if taint != nil && before.Tainted {
			todo, want.Tainted = append(todo, step{taint, func(s NodeState) bool { return !s.Tainted }}), false
		}
		if cordon != nil && before.Unschedulable {
			todo, want.Unschedulable = append(todo, step{cordon, func(s NodeState) bool { return !s.Unschedulable }}), false
		}
	} else {
		if cordon != nil && !before.Unschedulable {
			todo, want.Unschedulable = append(todo, step{cordon, func(s NodeState) bool { return s.Unschedulable }}), true
		}
		if taint != nil && !before.Tainted {
			todo, want.Tainted = append(todo, step{taint, func(s NodeState) bool { return s.Tainted }}), true
		}
	}
	if len(todo) == 0 {
		o.State, o.Reason = targets.Unchanged, before.String()+" already"
		return o
	}
	var now NodeState
	for _, st := range todo {
		stderr, err := k.run(ctx, st.cmd, nil)
		var rerr error
		// Read back even when ctx was cancelled (Ctrl-C): what the
		// command did is recorded for the release.
		now, rerr = k.Read(context.WithoutCancel(ctx), c.Node)
		if err == nil && rerr == nil && st.done(now) {
			o.Ran = append(o.Ran, st.cmd)
			continue
		}
		o.State = targets.Unknown
		switch {
		case err != nil:
			o.Reason = err.Error()
		case rerr != nil:
			o.Reason = fmt.Sprintf("reading it back after %s: %v", strings.Join(st.cmd, " "), rerr)
		default:
			o.Reason = fmt.Sprintf("%s exited 0 and the node reads %s: %s", strings.Join(st.cmd, " "), now, strings.TrimSpace(stderr))
		}
		if rerr == nil {
			if err != nil {
				o.Reason += "; it reads " + now.String()
			}
			if now == before && len(o.Ran) == 0 {
				o.State = targets.Untouched // the failure left it as it was
			}
		}
		return o
	}
	if now != want {
		o.State, o.Reason = targets.Unknown, fmt.Sprintf("it reads %s after %s, not %s", now, joinCommands(o.Ran), want)
		return o
	}
	o.State = targets.Applied
	return o
}

// Read reads a node's state with kubectl get node NODE -o json.
func (k Kubectl) Read(ctx context.Context, node string) (NodeState, error) {
	var b bytes.Buffer
	if _, err := k.run(ctx, []string{"kubectl", "get", "node", node, "-o", "json"}, &b); err != nil {
		return NodeState{}, fmt.Errorf("node %s: %w", node, err)
	}
	return NodeStateOf(b.Bytes(), node)
}

// run runs one command (its first word, "kubectl", is k.Path) within
// k.Timeout (apply's default when none), its standard output to stdout
// (discarded when nil), and returns what it wrote to standard error; the
// error has the command and what kubectl said.
func (k Kubectl) run(ctx context.Context, cmd []string, stdout io.Writer) (string, error) {
	args := slices.Clone(cmd[1:])
	if k.Context != "" {
		args = append(args, "--context", k.Context)
	}
	timeout := k.Timeout
	if timeout <= 0 {
		timeout = defaultStepTimeout
	}
	c, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var stderr bytes.Buffer
	x := exec.CommandContext(c, k.Path, args...)
	x.Stdout, x.Stderr = stdout, &stderr
	if err := x.Run(); err != nil {
		return stderr.String(), fmt.Errorf("%s: %v: %s", strings.Join(cmd, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stderr.String(), nil
}

// NodeRecord is what applying a quarantine plan found and did on each
// Kubernetes node: the state read before, and whether the quarantine
// cordoned it and added the taint. It is kept beside the plan, as the
// ports' ShutRecord, and the release plan is made from it.
type NodeRecord struct {
	// Quarantine is the digest of the quarantine plan applied.
	Quarantine string     `json:"quarantine_sha256"`
	Nodes      []NodeDone `json:"nodes"`
}

// NodeDone is one node of a NodeRecord.
type NodeDone struct {
	Node string `json:"node"`
	// Before is the state read before the quarantine first changed the
	// node.
	Before NodeState `json:"before"`
	// Cordoned and Tainted say that the quarantine cordoned the node and
	// added the taint: what its release undoes.
	Cordoned bool `json:"cordoned"`
	Tainted  bool `json:"tainted"`
}

// done returns the record of node; nil when there is none.
func (r *NodeRecord) done(node string) *NodeDone {
	if r == nil {
		return nil
	}
	for i := range r.Nodes {
		if r.Nodes[i].Node == node {
			return &r.Nodes[i]
		}
	}
	return nil
}

// RecordNodes adds what an apply of quarantine plan q did (outcomes) to
// rec, the record of earlier applies of q (nil for none): what a node's
// first record says the quarantine did stands, so that applying the plan
// again, which finds the node cordoned and tainted, never makes the
// release leave it so.
func RecordNodes(rec *NodeRecord, q *Quarantine, outcomes []NodeOutcome) *NodeRecord {
	out := &NodeRecord{Quarantine: q.SHA256, Nodes: []NodeDone{}}
	if rec != nil && rec.Quarantine == q.SHA256 {
		out.Nodes = append(out.Nodes, rec.Nodes...)
	}
	for _, o := range outcomes {
		if o.Before == nil {
			continue // never read: nothing known, nothing done
		}
		d := NodeDone{Node: o.Node, Before: *o.Before}
		for _, cmd := range o.Ran {
			switch cmd[1] {
			case "cordon":
				d.Cordoned = true
			case "taint":
				d.Tainted = true
			}
		}
		cur := out.done(o.Node)
		if cur == nil {
			out.Nodes = append(out.Nodes, d)
			continue
		}
		if !cur.Cordoned {
			cur.Before.Unschedulable, cur.Cordoned = d.Before.Unschedulable, d.Cordoned
		}
		if !cur.Tainted {
			cur.Before.Tainted, cur.Tainted = d.Before.Tainted, d.Tainted
		}
	}
	return out
}

// Write writes r as indented JSON.
func (r *NodeRecord) Write(w io.Writer) error { return writeIndented(w, r) }

// ReadNodeRecord reads the node record of the quarantine plan q: an error
// when it is the record of another plan.
func ReadNodeRecord(b []byte, q *Quarantine) (*NodeRecord, error) {
	var r NodeRecord
	if err := readRecord(b, "node record", &r, &r.Quarantine, q); err != nil {
		return nil, err
	}
	return &r, nil
}

// releaseCordons returns the nodes a release of q changes: of each node
// rec says the quarantine cordoned or tainted, that, undone.
func (q *Quarantine) releaseCordons(rec *NodeRecord) []Cordon {
	out := []Cordon{}
	for _, c := range q.Cordons {
		d := rec.done(c.Node)
		if d == nil || !d.Cordoned && !d.Tainted {
			continue
		}
		c.Cordon, c.Taint = d.Cordoned, d.Tainted
		c.Commands = commandsOf(KindRelease, c)
		out = append(out, c)
	}
	return out
}
