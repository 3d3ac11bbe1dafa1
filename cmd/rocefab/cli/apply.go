package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/targets"
)

const applyDoc = `Push a plan to the devices, wave by wave, and leave every device either applied or as it was.

apply PLAN pushes exactly a plan that plan -o saved. It refuses the plan when it was made by another
rocefab, when the intent changed since, or when what any device runs within the scope rocefab owns
there no longer matches the digest the plan recorded (it names the devices and the paths that
changed; configuration outside the scope, such as BGP or the hostname, may change meanwhile): make a
new plan then. apply PATH plans the intent at PATH, shows the plan and asks before pushing
(--auto-approve does not ask, for CI).

apply QUARANTINE runs a quarantine or release plan that doctor --out wrote: it checks it against
its intent and its digest (an edited plan is refused) and every shut port against the compiled
model, diagnoses the counters the plan records again (its snapshot files, checked against their
digests, its Prometheus window, --prometheus giving the server's credentials, or its --sample
files) and refuses a quarantine plan they do not give, checks that a release's quarantine plan is
unchanged and gives it, shows it, asks (--auto-approve does not), cordons and taints its Kubernetes nodes with
kubectl ($KUBECTL, or kubectl in PATH, with its kubeconfig; --kube-context picks a context),
reading each node first, runs its scontrol commands, and sets each switch port it shuts through
the switch's transport (--inventory, as for a device plan) with commit-confirm, reading the port
back before it confirms; a release brings its ports up first.

Before it pushes, apply recomputes every device's desired state, changes and remediation from the
intent and the running configuration it has just read, and refuses a plan whose recorded desired
state or remediation differs (a plan file is a record, not an authority: it names the device and the
first element or line that differs); each platform also refuses a remediation with a line, patch
operation or setting outside the scope rocefab owns.
Commits an earlier apply pushed and never confirmed (it was killed) are settled first: apply lists
them and, with 'yes' (or --auto-approve), confirms those whose devices run their desired state and
rolls back the others; any other answer rolls them all back.

The devices to change are pushed in waves: --canary N devices first, then waves of --wave N devices
or P% of the devices to change. The order goes from the edge in: leaves rail by rail, then servers,
then spines, then superspines, and a wave never spans two of these tiers, so that both ends of every
server-to-leaf link carry the new lossless settings (PFC, DSCP maps, ECN, MTU) before the spines that
carry their traffic change, and a failed edge wave stops the rollout before the core is touched.

In each wave every device is pushed as a commit that rolls back by itself unless confirmed
(--confirm-timeout; the directory target keeps a backup), then read back and checked to match the
desired state the plan recorded for it, and only then confirmed. On the first failure (a push refused, a timeout, a device
that does not converge, a commit not confirmed) apply stops: it rolls the wave back, reads each
device back to check it, and leaves the later waves untouched. Ctrl-C starts no new push: a wave
whose pushes had all started is finished, one cut short is rolled back. A lock (running/.rocefab.lock
for the directory target) refuses a second apply on the same fabric.

The report gives every device its state: applied, rolled-back, untouched, unknown (with why), or
unchanged. Under a device reached over SSH comes the diff the device itself printed of its push (EOS
show session-config diffs, NVUE nv config diff, what SONiC's config commands printed); --format
json gives these as device_diffs. On a terminal a progress bar shows the pushes; otherwise each step is one line on stderr.

Exit codes:
  0  every device to change was applied (or there was nothing to change)
  1  it failed, was interrupted or refused: the report says what was rolled back`

type applyArgs struct {
	inventory      string
	plaintext      bool
	only           string
	parallelism    int
	format         string
	autoApprove    bool
	canary         int
	wave           string
	confirmTimeout time.Duration
	timeout        time.Duration
	// kubeContext is the kubeconfig context kubectl uses for a
	// quarantine plan's Kubernetes nodes ("": kubectl's current one).
	kubeContext string
	// prometheus is the URL, with its credentials, of the Prometheus
	// server a quarantine plan was diagnosed from (the plan keeps none).
	prometheus string
}

func newApplyCmd() *cobra.Command {
	a := applyArgs{}
	cmd := &cobra.Command{
		Use:   "apply [PLAN|PATH]",
		Short: "Push a plan in waves with commit-confirm, check each wave, confirm it or roll it back",
		Long:  applyDoc,
		Example: "  rocefab plan lab -o lab.plan && rocefab apply lab.plan\n" +
			"  rocefab apply lab --auto-approve --canary 2 --wave 10%",
		Args: atMostOne("apply", "PLAN or PATH"),
		RunE: func(cmd *cobra.Command, args []string) error { return runApply(cmd, a, args) },
	}
	addPlanFlags(cmd, &a.inventory, &a.plaintext, &a.only, &a.parallelism)
	cmd.Flags().StringVar(&a.format, "format", "text", "output format of the report: text or json")
	// -o json: the contract's spelling (see formatAlias); apply writes no file.
	cmd.Flags().StringVarP(&a.format, "output-format", "o", "text", "deprecated: use --format")
	_ = cmd.Flags().MarkHidden("output-format")
	cmd.Flags().BoolVar(&a.autoApprove, "auto-approve", false, "push without asking (apply PATH)")
	cmd.Flags().IntVar(&a.canary, "canary", 1, "devices in the first wave (0: no canary wave)")
	cmd.Flags().StringVar(&a.wave, "wave", "25%", "devices in each later wave: a number, or a percentage of the devices to change")
	cmd.Flags().DurationVar(&a.confirmTimeout, "confirm-timeout", 5*time.Minute, "how long a pushed commit waits for its confirmation before the device rolls it back")
	cmd.Flags().DurationVar(&a.timeout, "timeout", 2*time.Minute, "how long each read, push, confirm or rollback of a device may take")
	cmd.Flags().StringVar(&a.kubeContext, "kube-context", "", "with a quarantine plan: the kubeconfig context kubectl cordons its Kubernetes nodes in (passed as --context)")
	cmd.Flags().StringVar(&a.prometheus, "prometheus", "", "with a quarantine plan diagnosed from Prometheus: the server's URL with its credentials, which the plan does not keep")
	cmd.SetFlagErrorFunc(planFlagError)
	return cmd
}

func runApply(cmd *cobra.Command, a applyArgs, args []string) error {
	if err := checkFormat(a.format); err != nil {
		return withCode(exitPlanError, err)
	}
	size, err := targets.ParseSize(a.wave)
	if err != nil {
		return withCode(exitPlanError, fmt.Errorf("--%w", err))
	}
	if a.canary < 0 {
		return withCode(exitPlanError, fmt.Errorf("--canary %d: 0 or more", a.canary))
	}
	if a.confirmTimeout <= 0 || a.timeout <= 0 {
		return withCode(exitPlanError, errors.New("--confirm-timeout and --timeout must be positive"))
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	in := bufio.NewReader(cmd.InOrStdin())
	// Questions and the plan go where the report does not: stderr when
	// stdout carries the JSON report.
	shown := cmd.OutOrStdout()
	if a.format == "json" {
		shown = cmd.ErrOrStderr()
	}
	arg := pathArg(args)
	if q, err := readQuarantinePlan(arg); err != nil || q != nil {
		if err != nil {
			return withCode(exitPlanError, err)
		}
		return applyQuarantine(ctx, cmd, a, arg, q, in, shown)
	}
	saved, err := readPlanArg(arg)
	if err != nil {
		return withCode(exitPlanError, err)
	}
	var s *session
	var p *targets.Plan
	var settled []targets.Settled
	if saved != nil {
		if a.only != "" {
			return withCode(exitPlanError, errors.New("--only: a saved plan covers the devices it was made for; plan again with --only"))
		}
		s, p, err = savedSession(cmd, arg, saved, a)
	} else {
		s, err = loadSession(cmd, arg, reach{a.inventory, a.plaintext}, a.only, a.parallelism)
	}
	if err != nil {
		return err
	}
	defer s.close()
	if settled, err = settlePending(ctx, s, a, in, shown); err != nil {
		return withCode(exitPlanError, err)
	}
	if saved == nil {
		// apply PATH: plan now, show the plan and ask.
		if p, err = s.plan(ctx, ""); err != nil {
			return withCode(exitPlanError, err)
		}
		if p.Empty() {
			if a.format != "json" {
				printPlan(cmd.OutOrStdout(), p)
				if p.Complete() {
					fmt.Fprintln(cmd.OutOrStdout(), "\nNothing to apply.")
				} else {
					fmt.Fprintln(cmd.OutOrStdout(), "\nNothing to apply to the devices that were read; the plan is incomplete.")
				}
			}
			return nothingToApply(cmd, a.format, p, settled, false)
		}
		printPlan(shown, p)
		if !a.autoApprove {
			ok, err := approve(in, shown, p)
			if err != nil {
				return withCode(exitPlanError, err)
			}
			if !ok {
				return withCode(exitPlanError, errors.New("apply cancelled: nothing was pushed"))
			}
		}
	}
	if p.Empty() {
		return nothingToApply(cmd, a.format, p, settled, true)
	}
	var events progressEvents = &eventLines{w: cmd.ErrOrStderr()}
	if isTerminal(cmd.ErrOrStderr()) {
		events = newApplyBar(cmd.ErrOrStderr(), p.Summary().Change)
	}
	rep, err := targets.Apply(ctx, targets.Rollout{
		Plan: p, Devices: s.fab.Devices, Target: s.route.Target, Platforms: s.route.Platforms,
		Canary: a.canary, Wave: size, Parallelism: a.parallelism,
		ConfirmTimeout: a.confirmTimeout, Timeout: a.timeout,
		LockPath: s.lockPath, Event: events.event,
	})
	events.done()
	if err != nil {
		return withCode(exitPlanError, fmt.Errorf("apply refused: %w", err))
	}
	rep.Settled = settled
	if a.format == "json" {
		if err := writeReport(cmd.OutOrStdout(), rep, p); err != nil {
			return withCode(exitPlanError, err)
		}
	} else {
		printReport(cmd.OutOrStdout(), rep)
	}
	if rep.Failed || rep.Interrupted {
		return withCode(exitPlanError, nil)
	}
	return nil
}

// readPlanArg returns the plan file at arg, or nil when arg is an intent
// (a directory, a .cue file, or JSON without a plan's format_version).
func readPlanArg(arg string) (*targets.Plan, error) {
	st, err := os.Stat(arg)
	if errors.Is(err, fs.ErrNotExist) {
		// Loading it as an intent would call a mistyped plan file an intent.
		return nil, fmt.Errorf("%s: no such plan file or intent: apply takes a plan that plan -o wrote, or an intent (a .cue or .json file, or a directory)", arg)
	}
	if err != nil || st.IsDir() || strings.HasSuffix(arg, ".cue") {
		return nil, nil // an intent; loading it says what is wrong
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return nil, err
	}
	var head map[string]json.RawMessage
	if json.Unmarshal(b, &head) != nil || head["format_version"] == nil {
		return nil, nil
	}
	// Shared by shape as in the file: an apply holds one device's changes
	// and remediation whole at a time.
	p, err := targets.ReadSharedPlan(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return p, nil
}

// savedSession loads the intent a saved plan was made from and checks
// that the plan still fits it: the same rocefab, the same intent, the same
// target, and every device it names.
func savedSession(cmd *cobra.Command, planPath string, p *targets.Plan, a applyArgs) (*session, *targets.Plan, error) {
	if p.Rocefab != version() {
		return nil, nil, withCode(exitPlanError, fmt.Errorf("%s was made by rocefab %s, this is rocefab %s: make the plan again with this one", planPath, p.Rocefab, version()))
	}
	intent := filepath.Join(filepath.Dir(planPath), filepath.FromSlash(p.Intent.Path))
	s, err := loadSession(cmd, intent, reach{a.inventory, a.plaintext}, "", a.parallelism)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*session, *targets.Plan, error) {
		s.close()
		return nil, nil, withCode(exitPlanError, err)
	}
	digest, err := intentDigest(s.in)
	if err != nil {
		return fail(err)
	}
	if digest != p.Intent.SHA256 {
		return fail(fmt.Errorf("%s was made from another version of the intent %s: it changed since; make the plan again", planPath, intent))
	}
	if t := s.route.Name; t != p.Target {
		return fail(fmt.Errorf("%s was made against %s, and this apply reaches %s: make the plan again", planPath, p.Target, t))
	}
	names := map[string]bool{}
	for _, d := range s.fab.Devices {
		names[d.Name] = true
	}
	for _, d := range p.Devices {
		if !names[d.Device] {
			return fail(fmt.Errorf("%s names %s, which the intent does not have", planPath, d.Device))
		}
	}
	return s, p, nil
}

// approve asks whether to push the plan and reads the answer: only "yes"
// is taken.
func approve(in *bufio.Reader, out io.Writer, p *targets.Plan) (bool, error) {
	return askYes(in, out, fmt.Sprintf("\nApply this plan to %s? Only 'yes' is accepted: ", diag.Plural(p.Summary().Change, "device", "devices")), "")
}

// askYes asks question and reads the answer: whether it is "yes". No
// answer at all (stdin closed) is an error, ending with then.
func askYes(in *bufio.Reader, out io.Writer, question, then string) (bool, error) {
	fmt.Fprint(out, question)
	line, err := in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	if errors.Is(err, io.EOF) && line == "" {
		fmt.Fprintln(out)
		return false, errors.New("apply cancelled: no answer (stdin is closed); use --auto-approve where no one can answer" + then)
	}
	return strings.TrimSpace(line) == "yes", nil
}

// nothingToApply ends an apply whose plan changes no device: the JSON
// report, or in text (say) the summary, and the same exit code in both: 1
// when a device could not be read or diffed, since then apply did not do
// its job.
func nothingToApply(cmd *cobra.Command, format string, p *targets.Plan, settled []targets.Settled, say bool) error {
	rep := noChangeReport(p)
	rep.Settled = settled
	if format == "json" {
		if err := writeReport(cmd.OutOrStdout(), rep, p); err != nil {
			return withCode(exitPlanError, err)
		}
	} else if say {
		fmt.Fprintf(cmd.OutOrStdout(), "Nothing to apply: %s\n", p.Summary())
	}
	if rep.Failed {
		return withCode(exitPlanError, incompleteError(p))
	}
	return nil
}

// settlePending settles the commits an earlier apply pushed and never
// confirmed, before anything is planned or pushed: it shows them, and
// with the operator's yes (or --auto-approve) confirms those whose
// devices run their desired state, rolling back the others; any other
// answer rolls them all back. A commit that could not be settled stops
// the apply.
func settlePending(ctx context.Context, s *session, a applyArgs, in *bufio.Reader, shown io.Writer) ([]targets.Settled, error) {
	settled, err := targets.Settle(ctx, targets.Settlement{
		Devices: s.devs, Target: s.route.Target, Platforms: s.route.Platforms, Parallelism: a.parallelism, Timeout: a.timeout, LockPath: s.lockPath,
		Decide: func(pending []targets.PendingCommit) (bool, error) {
			printPending(shown, pending)
			if a.autoApprove {
				fmt.Fprintln(shown, "--auto-approve: confirming those that run their desired state, rolling back the others.")
				return true, nil
			}
			return askYes(in, shown, "\nConfirm the commits of the devices that run their desired state, and roll back the others? Only 'yes' confirms; any other answer rolls them all back: ",
				"; the pending commits roll back by themselves when their timers run out")
		},
	})
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, st := range settled {
		fmt.Fprintf(shown, "  %-11s %s: %s\n", st.State, st.Device, st.Reason)
		if st.State == targets.Unknown {
			unknown = append(unknown, st.Device)
		}
	}
	if len(unknown) > 0 {
		return settled, fmt.Errorf("the pending commits of %s could not be settled: nothing was planned or pushed", strings.Join(unknown, ", "))
	}
	return settled, nil
}

// noChangeReport is the report of a plan with nothing to push; it failed
// when the plan is incomplete.
func noChangeReport(p *targets.Plan) *targets.Report {
	rep := &targets.Report{}
	if !p.Complete() {
		rep.Failed = true
		rep.Reason = fmt.Sprintf("the plan is incomplete: %s could not be read or diffed", planCount(p, targets.Unreachable, targets.Failed))
	}
	for _, d := range p.Devices {
		o := targets.Outcome{Device: d.Device, State: targets.Unchanged}
		if d.Action != targets.NoOp {
			o.State, o.Reason = targets.Untouched, fmt.Sprintf("%s when planned: %s", d.Action, d.Reason)
		}
		rep.Devices = append(rep.Devices, o)
	}
	return rep
}

// reportJSON is apply's JSON output: the report (with each device's own
// diff of its push where its target reports one) and the count of devices
// in each state.
type reportJSON struct {
	Fabric string                `json:"fabric"`
	Counts map[targets.State]int `json:"counts"`
	*targets.Report
}

func writeReport(w io.Writer, rep *targets.Report, p *targets.Plan) error {
	b, err := json.MarshalIndent(reportJSON{Fabric: p.Fabric, Counts: rep.Counts(), Report: rep}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// printReport writes the text view of a report: why it stopped, each
// device that was to change with its state, under it the diff the device
// printed of its push (indented, since it is the device's text and not
// rocefab's), and the counts.
func printReport(w io.Writer, rep *targets.Report) {
	switch {
	case rep.Failed:
		fmt.Fprintf(w, "Apply failed: %s\n", rep.Reason)
	case rep.Interrupted:
		fmt.Fprintf(w, "Apply interrupted: %s\n", rep.Reason)
	default:
		fmt.Fprintf(w, "Apply complete: %d of %d waves\n", rep.Completed, rep.Waves)
	}
	width := 0
	for _, o := range rep.Devices {
		width = max(width, len(o.Device))
	}
	for _, o := range rep.Devices {
		if o.State == targets.Unchanged {
			continue
		}
		line := fmt.Sprintf("  %-11s %-*s", o.State, width, o.Device)
		if o.Wave > 0 {
			line += fmt.Sprintf("  wave %d", o.Wave)
		}
		if o.Reason != "" {
			line += ": " + o.Reason
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if diff := rep.DeviceDiffs[o.Device]; diff != "" {
			fmt.Fprintf(w, "      %s's diff:\n", o.Device)
			for _, l := range strings.Split(diff, "\n") {
				fmt.Fprintln(w, strings.TrimRight("        "+l, " \t\r"))
			}
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	c := rep.Counts()
	fmt.Fprintf(w, "Apply: %d applied, %d rolled back, %d untouched, %d unknown; %d unchanged\n",
		c[targets.Applied], c[targets.RolledBack], c[targets.Untouched], c[targets.Unknown], c[targets.Unchanged])
}

// progressEvents shows a rollout's progress.
type progressEvents interface {
	event(targets.Event)
	done()
}

// eventLines writes one line per step, for logs and pipes.
type eventLines struct{ w io.Writer }

func (e *eventLines) event(ev targets.Event) {
	var b strings.Builder
	fmt.Fprintf(&b, "wave %d/%d: ", ev.Wave, ev.Waves)
	if ev.Device != "" {
		b.WriteString(ev.Device + " ")
	}
	b.WriteString(string(ev.Step))
	if ev.Detail != "" {
		b.WriteString(": " + ev.Detail)
	}
	fmt.Fprintln(e.w, b.String())
}

func (e *eventLines) done() {}

// applyBar is the progress bar of a terminal: devices settled (confirmed,
// rolled back or unknown) out of those to change.
type applyBar struct {
	p *mpb.Progress
	b *mpb.Bar
}

func newApplyBar(w io.Writer, total int) *applyBar {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))
	b := p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name("applying "), decor.CountersNoUnit("%d/%d devices")),
		mpb.AppendDecorators(decor.Percentage()),
	)
	return &applyBar{p: p, b: b}
}

func (a *applyBar) event(ev targets.Event) {
	switch ev.Step {
	case targets.StepConfirmed, targets.StepRolledBack, targets.StepUnknown:
		a.b.Increment()
	}
}

func (a *applyBar) done() {
	if !a.b.Completed() {
		a.b.Abort(false)
	}
	a.p.Wait()
}
