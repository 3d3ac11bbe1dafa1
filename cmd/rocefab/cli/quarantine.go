package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets/doctor"
)

// loadFabric loads and compiles the intent at path, for the commands
// that read the fabric and push nothing to its devices; code is the exit
// code of an intent that does not compile.
func loadFabric(cmd *cobra.Command, path string, code int) (*schema.Intent, *ir.Fabric, error) {
	f, err := compiler.Load(path, compiler.FrontOptions{Expand: true})
	if err != nil {
		return nil, nil, withCode(code, err)
	}
	if f.Fabric == nil {
		summarizeDiags(cmd, f.Diags)
		return nil, nil, withCode(code, fmt.Errorf("the intent %s does not compile", path))
	}
	return f.Intent, f.Fabric, nil
}

// writeQuarantine writes q to out, its intent path relative to out's
// directory.
func writeQuarantine(q *doctor.Quarantine, intentPath, out string) error {
	q.Intent.Path = filepath.ToSlash(intentPath)
	if rel, err := relTo(filepath.Dir(out), intentPath); err == nil {
		q.Intent.Path = rel
	}
	q.SHA256 = q.Digest()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := q.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readQuarantinePlan reads the quarantine or release plan at path and
// checks its content against its digest; nil when path is not one.
func readQuarantinePlan(path string) (*doctor.Quarantine, error) {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || strings.HasSuffix(path, ".cue") {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	is := doctor.IsQuarantine(bufio.NewReaderSize(f, 512))
	f.Close()
	if !is {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	q, err := doctor.ReadQuarantine(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return q, nil
}

// shutRecordPath is where apply keeps the record of what applying the
// quarantine plan at plan did to the ports it shuts, beside the plan (the
// plan itself is bound by its digest): the release plan is made from it.
func shutRecordPath(plan string) string { return plan + ".ports.json" }

// readShutRecord reads the record of applying q, the plan at plan; nil
// when apply never shut a port of it here.
func readShutRecord(plan string, q *doctor.Quarantine) (*doctor.ShutRecord, error) {
	return readRecord(shutRecordPath(plan), func(b []byte) (*doctor.ShutRecord, error) { return doctor.ReadShutRecord(b, q) })
}

// readRecord reads the record at path with read; nil when there is none.
func readRecord[R any](path string, read func([]byte) (*R, error)) (*R, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec, err := read(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// nodeRecordPath is where apply keeps the record of what applying the
// quarantine plan at plan found and did on its Kubernetes nodes, beside
// the plan as the ports' record: the release plan is made from it.
func nodeRecordPath(plan string) string { return plan + ".nodes.json" }

// readNodeRecord reads the node record of applying q, the plan at plan;
// nil when apply never read a node of it here.
func readNodeRecord(plan string, q *doctor.Quarantine) (*doctor.NodeRecord, error) {
	return readRecord(nodeRecordPath(plan), func(b []byte) (*doctor.NodeRecord, error) { return doctor.ReadNodeRecord(b, q) })
}

// releasePlan writes the release plan of the quarantine plan at from to
// out: its drains undone, the Kubernetes nodes the record of its apply
// says it cordoned or tainted uncordoned or untainted, and up again the
// ports the record says it shut. warn is told when the plan changes nodes
// or ports and no apply of it left a record of them here: the release
// then leaves them as they are.
func releasePlan(from, out string, warn io.Writer) error {
	q, err := readQuarantinePlan(from)
	if err != nil {
		return err
	}
	if q == nil || q.Kind != doctor.KindQuarantine {
		return fmt.Errorf("--release %s: allowed is a quarantine plan written by rocefab doctor --out", from)
	}
	rec, err := readShutRecord(from, q)
	if err != nil {
		return err
	}
	if rec == nil && len(q.Shuts) > 0 {
		fmt.Fprintf(warn, "WARNING: %s shuts %s and no apply of it left a record here (%s): the release brings no port up; bring them up by hand if they were shut.\n",
			from, diag.Plural(len(q.Shuts), "switch port", "switch ports"), shutRecordPath(from))
	}
	nodes, err := readNodeRecord(from, q)
	if err != nil {
		return err
	}
	if nodes == nil && len(q.Cordons) > 0 {
		fmt.Fprintf(warn, "WARNING: %s cordons and taints %s and no apply of it left a record here (%s): the release uncordons and untaints none; run kubectl uncordon NODE and kubectl taint nodes NODE %s:%s- by hand if they were.\n",
			from, diag.Plural(len(q.Cordons), "Kubernetes node", "Kubernetes nodes"), nodeRecordPath(from), doctor.TaintKey, doctor.TaintEffect)
	}
	intent := filepath.Join(filepath.Dir(from), filepath.FromSlash(q.Intent.Path))
	r := q.Release(rec, nodes)
	// The quarantine plan released, relative to the release's directory
	// as the intent is: apply checks it is unchanged.
	r.Releases.Path = filepath.ToSlash(from)
	if rel, err := relTo(filepath.Dir(out), from); err == nil {
		r.Releases.Path = rel
	}
	return writeQuarantine(r, intent, out)
}

// applyQuarantine carries out a quarantine or release plan: it checks
// the plan against its intent (the same rocefab, the same intent, every
// node a server at the finding's origin or cable, every shut port the
// switch end of the finding's cable) and its evidence (a quarantine's
// counters diagnosed again give it; a release's quarantine plan is
// unchanged and gives it), shows it, asks as for any plan
// unless --auto-approve, sets the Kubernetes nodes with kubectl, runs its
// scontrol commands and sets the switch ports through the route of the
// inventory (--inventory, as a device apply reaches them) with
// commit-confirm, each one by one (a quarantine in that order, a release
// in the reverse), stopping at the first node, command or port that
// fails.
func applyQuarantine(ctx context.Context, cmd *cobra.Command, a applyArgs, path string, q *doctor.Quarantine, in *bufio.Reader, shown io.Writer) error {
	if a.only != "" {
		return withCode(exitPlanError, errors.New("--only: a quarantine plan drains the servers and shuts the ports its findings name; write it again with rocefab doctor"))
	}
	if q.Rocefab != version() {
		return withCode(exitPlanError, fmt.Errorf("%s was written by rocefab %s, this is rocefab %s: write it again with this one", path, q.Rocefab, version()))
	}
	intent := filepath.Join(filepath.Dir(path), filepath.FromSlash(q.Intent.Path))
	var ini *schema.Intent
	var fab *ir.Fabric
	var s *session
	var err error
	if len(q.Shuts) > 0 {
		// The switches are reached as a device apply reaches them.
		if s, err = loadSession(cmd, intent, reach{a.inventory, a.plaintext}, "", a.parallelism); err != nil {
			return err
		}
		defer s.close()
		ini, fab = s.in, s.fab
	} else if ini, fab, err = loadFabric(cmd, intent, exitPlanError); err != nil {
		return err
	}
	digest, err := intentDigest(ini)
	if err != nil {
		return withCode(exitPlanError, err)
	}
	if digest != q.Intent.SHA256 {
		return withCode(exitPlanError, fmt.Errorf("%s was written from another version of the intent %s: it changed since; write the plan again", path, intent))
	}
	if err := q.Check(fab); err != nil {
		return withCode(exitPlanError, fmt.Errorf("%s: %w", path, err))
	}
	if err := checkEvidence(ctx, path, q, fab, a.prometheus); err != nil {
		return withCode(exitPlanError, err)
	}
	printQuarantine(shown, q)
	// In text the steps go to stdout; with --format json the report
	// does, and the steps to stderr with the plan.
	out, rep := cmd.OutOrStdout(), quarantineReport{Kind: q.Kind, Fabric: q.Fabric, Nodes: q.Nodes(), Ran: [][]string{},
		Kubernetes: []doctor.NodeOutcome{}, Ports: []doctor.PortOutcome{}}
	if a.format == "json" {
		out = shown
	}
	if len(q.Drains) == 0 && len(q.Cordons) == 0 && len(q.Shuts) == 0 {
		fmt.Fprintln(out, "Nothing to apply.")
		return writeQuarantineReport(cmd, a, rep, nil)
	}
	if !a.autoApprove {
		ok, err := askYes(in, shown, fmt.Sprintf("\n%s? Only 'yes' is accepted: ", quarantineQuestion(q)), "")
		if err != nil {
			return withCode(exitPlanError, err)
		}
		if !ok {
			return withCode(exitPlanError, errors.New("apply cancelled: nothing was drained, undrained, cordoned, uncordoned, shut or brought up"))
		}
	}
	var scontrol string
	if len(q.Drains) > 0 {
		if scontrol, err = exec.LookPath("scontrol"); err != nil {
			return withCode(exitPlanError, fmt.Errorf("apply %s: %w (Slurm's scontrol, Debian package slurm-client, with the cluster's slurm.conf)", path, err))
		}
	}
	var kubectl string
	if len(q.Cordons) > 0 {
		if kubectl, err = kubectlPath(); err != nil {
			return withCode(exitPlanError, fmt.Errorf("apply %s: %w", path, err))
		}
	}
	rep.Kubernetes, rep.Ports = q.UntouchedNodes(), q.UntouchedPorts()
	nodes := func() error {
		if len(q.Cordons) == 0 {
			return nil
		}
		var err error
		rep.Kubernetes, err = q.SetNodes(ctx, doctor.Kubectl{Path: kubectl, Context: a.kubeContext, Timeout: a.timeout,
			Event: func(o doctor.NodeOutcome) { printNodeOutcome(out, o) }})
		for _, o := range rep.Kubernetes {
			rep.Ran = append(rep.Ran, o.Ran...)
		}
		if q.Kind == doctor.KindQuarantine {
			if rerr := recordNodes(path, q, rep.Kubernetes); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		if err != nil {
			return fmt.Errorf("apply %s: the Kubernetes nodes: %w", path, err)
		}
		return nil
	}
	ports := func() error {
		if len(q.Shuts) == 0 {
			return nil
		}
		var err error
		rep.Ports, err = q.SetPorts(ctx, doctor.Ports{
			Target: s.route.Target, Platforms: s.route.Platforms, Fabric: fab, LockPath: s.lockPath,
			ConfirmTimeout: a.confirmTimeout, Timeout: a.timeout,
			Event: func(o doctor.PortOutcome) { printPortOutcome(out, o) },
		})
		if q.Kind == doctor.KindQuarantine {
			if rerr := recordShuts(path, q, rep.Ports); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		if err != nil {
			return fmt.Errorf("apply %s: the ports: %w; the ports before it were set", path, err)
		}
		return nil
	}
	drains := func() error {
		for i, d := range q.Drains {
			c := exec.CommandContext(ctx, scontrol, d.Command[1:]...)
			b, err := c.CombinedOutput()
			if err != nil {
				return fmt.Errorf("apply %s stopped at drain %d of %d: %s: %v: %s; the drains before it were applied",
					path, i+1, len(q.Drains), strings.Join(d.Command, " "), err, strings.TrimSpace(string(b)))
			}
			rep.Ran = append(rep.Ran, d.Command)
			fmt.Fprintf(out, "  done  %s\n", shellQuote(d.Command))
		}
		return nil
	}
	// A quarantine cordons and drains first, so that no new pod or job
	// lands on a server whose link is about to go down, and shuts after;
	// it reads every Kubernetes node before it changes anything, so that
	// a server missing in the cluster stops it before any drain. A
	// release brings the links up before it lets jobs and pods back.
	// Either stops at the first failure, leaving the later steps undone.
	steps := []func() error{nodes, drains, ports}
	if q.Kind == doctor.KindRelease {
		steps = []func() error{ports, drains, nodes}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			rep.Failed = err.Error()
			return writeQuarantineReport(cmd, a, rep, err)
		}
	}
	fmt.Fprintf(out, "Apply complete: %s\n", quarantineDone(q))
	return writeQuarantineReport(cmd, a, rep, nil)
}

// quarantineQuestion is what apply asks before it runs q.
func quarantineQuestion(q *doctor.Quarantine) string {
	verbs := map[string][3]string{doctor.KindQuarantine: {"drain", "cordon and taint", "shut"},
		doctor.KindRelease: {"undrain", "uncordon or untaint", "bring up"}}[q.Kind]
	var parts []string
	if len(q.Drains) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s in Slurm", verbs[0], diag.Plural(len(q.Nodes()), "server", "servers")))
	}
	if len(q.Cordons) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s", verbs[1], diag.Plural(len(q.Cordons), "Kubernetes node", "Kubernetes nodes")))
	}
	if len(q.Shuts) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s with commit-confirm", verbs[2], diag.Plural(len(q.Shuts), "switch port", "switch ports")))
	}
	s := strings.Join(parts, " and ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// quarantineDone says what an apply of q that ran to its end did.
func quarantineDone(q *doctor.Quarantine) string {
	verbs := map[string][3]string{doctor.KindQuarantine: {"drained", "cordoned and tainted", "shut"},
		doctor.KindRelease: {"undrained", "uncordoned or untainted", "brought up"}}[q.Kind]
	var parts []string
	if len(q.Drains) > 0 {
		parts = append(parts, diag.Plural(len(q.Nodes()), "server", "servers")+" "+verbs[0])
	}
	if len(q.Cordons) > 0 {
		parts = append(parts, diag.Plural(len(q.Cordons), "Kubernetes node", "Kubernetes nodes")+" "+verbs[1]+" or already so")
	}
	if len(q.Shuts) > 0 {
		parts = append(parts, diag.Plural(len(q.Shuts), "switch port", "switch ports")+" "+verbs[2]+" or already so")
	}
	return strings.Join(parts, ", ")
}

// printNodeOutcome writes one Kubernetes node's outcome as a step of
// apply: its state and each command that ran.
func printNodeOutcome(w io.Writer, o doctor.NodeOutcome) {
	line := fmt.Sprintf("  %-11s node %s (server %s)", o.State, o.Node, o.Server)
	if o.Reason != "" {
		line += ": " + o.Reason
	}
	fmt.Fprintln(w, line)
	for _, c := range o.Ran {
		fmt.Fprintf(w, "  done  %s\n", shellQuote(c))
	}
}

// kubectlPath finds the kubectl apply runs: $KUBECTL when set (a path,
// or a name looked up in PATH, as build's label-nodes.sh takes it), else
// kubectl in PATH.
func kubectlPath() (string, error) {
	name := "kubectl"
	if k := os.Getenv("KUBECTL"); k != "" {
		name = k
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w (kubectl, Debian package kubernetes-client, with the cluster's kubeconfig; KUBECTL names another kubectl)", err)
	}
	return p, nil
}

// recordNodes adds what applying q at plan found and did on its
// Kubernetes nodes to the record beside the plan, which the release plan
// is made from. An apply that read no node and found no record writes
// none, so that the release still warns that nothing was recorded.
func recordNodes(plan string, q *doctor.Quarantine, outcomes []doctor.NodeOutcome) error {
	rec, err := readNodeRecord(plan, q)
	if err != nil {
		return err
	}
	if rec == nil && !slices.ContainsFunc(outcomes, func(o doctor.NodeOutcome) bool { return o.Before != nil }) {
		return nil
	}
	return writeRecord(nodeRecordPath(plan), doctor.RecordNodes(rec, q, outcomes), "the Kubernetes nodes' states before the cordon")
}

// writeRecord writes a record of what an apply of a quarantine plan did
// (what says which, for the error) to path, beside the plan.
func writeRecord(path string, rec interface{ Write(io.Writer) error }, what string) error {
	var b bytes.Buffer
	if err := rec.Write(&b); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("recording %s: %w", what, err)
	}
	return nil
}

// printPortOutcome writes one port's outcome as a step of apply.
func printPortOutcome(w io.Writer, o doctor.PortOutcome) {
	line := fmt.Sprintf("  %-11s %s admin %s", o.State, o.Port, o.Admin)
	if o.Reason != "" {
		line += ": " + o.Reason
	}
	fmt.Fprintln(w, line)
}

// recordShuts adds what applying q at plan did to its ports to the
// record beside the plan, which the release plan is made from.
func recordShuts(plan string, q *doctor.Quarantine, outcomes []doctor.PortOutcome) error {
	rec, err := readShutRecord(plan, q)
	if err != nil {
		return err
	}
	return writeRecord(shutRecordPath(plan), doctor.Record(rec, q, outcomes), "the ports' states before the shut")
}

// quarantineReport is apply's JSON report of a quarantine or release
// plan: the servers it drains in Slurm, the commands that ran, each
// Kubernetes node's and each port's outcome, and why it stopped.
type quarantineReport struct {
	Kind       string               `json:"kind"`
	Fabric     string               `json:"fabric"`
	Nodes      []string             `json:"nodes"`
	Ran        [][]string           `json:"ran"`
	Kubernetes []doctor.NodeOutcome `json:"kubernetes"`
	Ports      []doctor.PortOutcome `json:"ports"`
	Failed     string               `json:"failed,omitempty"`
}

// writeQuarantineReport ends the apply of a quarantine plan: the JSON
// report with --format json, and exit 1 with err when a command failed.
func writeQuarantineReport(cmd *cobra.Command, a applyArgs, rep quarantineReport, err error) error {
	if a.format == "json" {
		b, jerr := json.MarshalIndent(rep, "", "  ")
		if jerr != nil {
			return withCode(exitPlanError, jerr)
		}
		cmd.OutOrStdout().Write(append(b, '\n'))
	}
	if err != nil {
		return withCode(exitPlanError, err)
	}
	return nil
}

// printQuarantine shows a quarantine or release plan before it is
// applied: each finding with the servers and the command, each
// Kubernetes node with its commands, and each switch port with the state
// it is set to.
func printQuarantine(w io.Writer, q *doctor.Quarantine) {
	kube := ""
	if len(q.Cordons) > 0 {
		kube = ", " + diag.Plural(len(q.Cordons), "Kubernetes node", "Kubernetes nodes")
	}
	fmt.Fprintf(w, "%s plan for %s (counters from %s): %s%s, %s\n", q.Kind, q.Fabric, q.Source,
		diag.Plural(len(q.Nodes()), "server", "servers"), kube, diag.Plural(len(q.Shuts), "switch port", "switch ports"))
	for _, d := range q.Drains {
		fmt.Fprintf(w, "  %s %s at %s: %s\n", d.Kind, d.Cause, d.Origin, strings.Join(d.Nodes, ", "))
		fmt.Fprintf(w, "    %s\n", shellQuote(d.Command))
	}
	for _, c := range q.Cordons {
		fmt.Fprintf(w, "  %s %s at %s: Kubernetes node %s\n", c.Kind, c.Cause, c.Origin, c.Node)
		for _, cmd := range c.Commands {
			fmt.Fprintf(w, "    %s\n", shellQuote(cmd))
		}
	}
	for _, sh := range q.Shuts {
		fmt.Fprintf(w, "  %s %s at %s: switch port %s administratively %s\n", sh.Kind, sh.Cause, sh.Origin, sh.Port, sh.Admin)
	}
}

// shellQuote prints a command as a shell would take it, for an operator
// to read or paste.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, s := range args {
		if strings.ContainsAny(s, " \t'\"$\\;&|<>()*?") {
			k, v, _ := strings.Cut(s, "=")
			if strings.ContainsAny(k, " \t'\"$\\;&|<>()*?") {
				out[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
				continue
			}
			out[i] = k + "='" + strings.ReplaceAll(v, "'", `'\''`) + "'"
			continue
		}
		out[i] = s
	}
	return strings.Join(out, " ")
}
