package cli

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/cmd/rocefab/outdir"
	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/routing"
)

const planDoc = `Read every device's running configuration, compare what rocefab owns of it with what the intent
wants, and show what would change and what each change disrupts.

Without --inventory the running configurations are files beside the intent, in the form each device
prints them: running/<device>/<file> (EOS show running-config, NVUE nv config show -o yaml,
config_db.json, OpenConfig JSON, the host's state). A device without a directory there runs nothing
yet: its plan creates its configuration. Configuration outside what rocefab owns (BGP, management,
ACLs, ...) is never read into a plan.

With --inventory FILE (#Inventory, rocefab schema --inventory) each device is reached by the
transport its access names. transport "gnmi": a switch's OpenConfig tree is read with a gNMI Get of
the root and changed with the SetRequest the OpenConfig platform computes (a replace of /qos, updates
of the owned leaves of each fabric port, never a replace of / or /interfaces), over TLS checked
against the system's roots or the inventory's caFile, at the address the inventory gives ("{name}"
patterns, a port from the address or the access), with the inventory's username and, for auth
"password", the password from the environment variable passwordEnv names (never from a file or a
flag). transport "ssh": an EOS, NX-OS or NVUE switch's CLI or a SONiC switch's shell, each with its
own session and commit (docs/transports.md), and a server's host profile through the runtime
rocefab installs on it (behind sudo -n with sudo: true), host keys checked against known_hosts.
transport "dir": running/ beside the intent, as without an inventory. A device reached by a
transport rocefab does not speak (netconf), or over ssh on a platform it has no driver for, is
planned unsupported, with why.
--insecure-plaintext sends gNMI without TLS, credentials included, for lab devices only: it warns,
and a plan made so is applied only so.

For each device the plan gives its action (create, update, no-op, unreachable; unsupported for a
platform whose running configuration rocefab cannot read yet, error when it could not be parsed),
each change with its element, before and after, and its disruption class (hitless, port-flap,
traffic-pause, reboot), and the platform's remediation: the lines apply pushes. The last line sums
it up: "12 devices to change: 8 hitless, 4 traffic-pause; 324 unchanged". Devices with the same
changes are shown once; a plan whose changes and remediations would still take more than 5,000 lines
(the first plan of a large fabric, where every device creates its own configuration) shows the
devices to change counted by action, role and platform instead, and --format json or -o PLAN has
every device's.

-o PLAN saves the plan as versioned JSON, bound to the intent's digest, this rocefab's version and
the digest of what each device runs within the scope rocefab owns (docs/ownership.md): apply PLAN
pushes exactly it, and refuses it when any of them changed (-out PLAN, Terraform's spelling, works
too). --format json, or -o json, prints the same JSON; a plan file named json is -o ./json.

Exit codes:
  0  the plan was made; with --detailed-exitcode, nothing to change
  1  error: the intent does not compile, or a device could not be read or diffed (the plan is still shown)
  2  with --detailed-exitcode: the plan changes devices`

// Exit codes of plan and apply (INTENT.md section 3): unlike lint and
// build, 1 is an error, and 2 is reserved for plan's changes.
const (
	exitPlanError   = 1
	exitPlanChanges = 2
)

type planArgs struct {
	inventory   string
	plaintext   bool
	out         string
	format      string
	only        string
	detailed    bool
	parallelism int
}

func newPlanCmd() *cobra.Command {
	a := planArgs{}
	cmd := &cobra.Command{
		Use:   "plan [PATH] [-o PLAN]",
		Short: "Show what the intent would change on each device, and what each change disrupts",
		Long:  planDoc,
		Example: "  rocefab plan examples/pod-2048\n" +
			"  rocefab plan examples/pod-2048 -o pod-2048.plan --only 'leaf-r0-*'\n" +
			"  rocefab plan examples/pod-2048 --format json --detailed-exitcode > plan.json || test $? -eq 2",
		Args: atMostOne("plan", "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error { return runPlan(cmd, a, args) },
	}
	addPlanFlags(cmd, &a.inventory, &a.plaintext, &a.only, &a.parallelism)
	cmd.Flags().StringVar(&a.format, "format", "text", "output format: text or json")
	cmd.Flags().VarP(outOrFormat{&a.out, &a.format}, "out", "o", "save the plan to this file (versioned JSON), for apply; -out PLAN too, and -o json prints it as --format json does")
	cmd.Flags().BoolVar(&a.detailed, "detailed-exitcode", false, "exit 2 when the plan changes devices, 0 when it changes none")
	cmd.SetFlagErrorFunc(planFlagError)
	return cmd
}

// atMostOne refuses more than one argument to command, which takes one
// what, with plan's and apply's exit code for arguments they cannot run.
func atMostOne(command, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 1 {
			return withCode(exitPlanError, fmt.Errorf("%s takes one %s, got %d arguments: %s", command, what, len(args), strings.Join(args, " ")))
		}
		return nil
	}
}

// planFlagError is plan's and apply's flag error: their exit code for
// arguments they cannot run, with the hint of formatFlagHint.
func planFlagError(c *cobra.Command, err error) error {
	return withCode(exitPlanError, formatFlagHint(c, err))
}

// addPlanFlags adds the flags plan and apply share.
func addPlanFlags(cmd *cobra.Command, inventory *string, plaintext *bool, only *string, parallelism *int) {
	cmd.Flags().StringVar(inventory, "inventory", "", "how to reach the devices (CUE or JSON, #Inventory); without it, running/ beside the intent")
	cmd.Flags().BoolVar(plaintext, "insecure-plaintext", false, "reach gNMI devices WITHOUT TLS: credentials and configuration in clear text, for lab devices only")
	addSSHFlags(cmd)
	cmd.Flags().StringVar(only, "only", "", "plan only devices whose name matches this glob (e.g. 'leaf-*')")
	cmd.Flags().IntVar(parallelism, "parallelism", targets.DefaultParallelism, "devices read or pushed at once")
}

func runPlan(cmd *cobra.Command, a planArgs, args []string) error {
	if err := checkFormat(a.format); err != nil {
		return withCode(exitPlanError, err)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := loadSession(cmd, pathArg(args), reach{a.inventory, a.plaintext}, a.only, a.parallelism)
	if err != nil {
		return err
	}
	defer s.close()
	p, err := s.plan(ctx, a.out)
	if err != nil {
		return withCode(exitPlanError, err)
	}
	if a.out != "" {
		if err := writePlanFile(ctx, a.out, p); err != nil {
			return withCode(exitPlanError, err)
		}
	}
	w := cmd.OutOrStdout()
	if a.format == "json" {
		if err := targets.WritePlan(ctxWriter{ctx, w}, p); err != nil {
			return withCode(exitPlanError, err)
		}
	} else {
		printPlan(w, p)
		if a.out != "" {
			fmt.Fprintf(w, "\nSaved the plan to %s: rocefab apply %s pushes exactly it.\n", a.out, a.out)
		}
	}
	switch {
	case !p.Complete():
		return withCode(exitPlanError, incompleteError(p))
	case a.detailed && !p.Empty():
		return withCode(exitPlanChanges, nil)
	}
	return nil
}

// checkFormat refuses an output format plan and apply do not have.
func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return fmt.Errorf("--format %q: allowed are text, json", f)
	}
	return nil
}

// outOrFormat is -o/--out of the commands that write a file and print a
// report (plan, doctor). INTENT.md section 3 spells JSON output "-o json"
// on every command that reports, so the format names json and text choose
// the report's format; any other value names the file, and a file called
// json is -o ./json.
type outOrFormat struct{ out, format *string }

func (f outOrFormat) String() string { return *f.out }

func (f outOrFormat) Set(v string) error {
	if v == "json" || v == "text" {
		*f.format = v
		return nil
	}
	*f.out = v
	return nil
}

func (f outOrFormat) Type() string { return "string" }

// singleDashOut rewrites Terraform's one-dash -out PLAN and -out=PLAN, the
// spelling of INTENT.md section 3, to --out: pflag would read them as -o
// with the value "ut". Arguments after "--" are left as they are.
func singleDashOut(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "-out" || strings.HasPrefix(a, "-out=") {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = "-" + a
		}
	}
	if out == nil {
		return args
	}
	return out
}

// incompleteError says that a plan is incomplete and which devices could
// not be read or diffed, by name (the first ten), with their actions.
func incompleteError(p *targets.Plan) error {
	var names []string
	for _, d := range p.Devices {
		if d.Action == targets.Unreachable || d.Action == targets.Failed {
			names = append(names, fmt.Sprintf("%s (%s)", d.Device, d.Action))
		}
	}
	if len(names) > 10 {
		names = append(names[:10], fmt.Sprintf("and %d more", len(names)-10))
	}
	return fmt.Errorf("the plan is incomplete: %s could not be read or diffed: %s", planCount(p, targets.Unreachable, targets.Failed), strings.Join(names, ", "))
}

func planCount(p *targets.Plan, actions ...targets.Action) string {
	n := 0
	for _, d := range p.Devices {
		if slices.Contains(actions, d.Action) {
			n++
		}
	}
	if n == 1 {
		return "1 device"
	}
	return strconv.Itoa(n) + " devices"
}

// session is an intent compiled and paired with the route that reaches
// its devices: what plan and apply share.
type session struct {
	in          *schema.Intent
	fab         *ir.Fabric
	devs        []*ir.Device
	route       *routing.Route
	lockPath    string
	only        string
	parallelism int
}

// reach is how plan and apply reach the devices: an inventory, and
// whether gNMI goes without TLS.
type reach struct {
	inventory string
	plaintext bool
}

// loadSession compiles the intent at path, selects the devices --only
// names, and routes them (routing.Reach): through the directory running/
// beside the intent, or, with an inventory, each device's transport.
func loadSession(cmd *cobra.Command, p string, via reach, only string, parallelism int) (*session, error) {
	if parallelism < 1 {
		return nil, withCode(exitPlanError, fmt.Errorf("--parallelism %d: at least 1", parallelism))
	}
	if only != "" {
		if _, err := path.Match(only, ""); err != nil {
			return nil, withCode(exitPlanError, fmt.Errorf("--only %q: %v", only, err))
		}
	}
	f, err := compiler.Load(p, compiler.FrontOptions{Only: only})
	if f == nil {
		return nil, withCode(exitPlanError, err)
	}
	in, fab, devs, ds := f.Intent, f.Fabric, f.Devices, f.Diags
	summarizeDiags(cmd, ds)
	if fab == nil || ds.HasErrors() {
		return nil, withCode(exitPlanError, fmt.Errorf("the intent has %s first (rocefab lint)", fixFirst(max(ds.Count(diag.Error), 1))))
	}
	if err != nil {
		return nil, withCode(exitPlanError, err)
	}
	s := &session{in: in, fab: fab, devs: devs, only: only, parallelism: parallelism,
		lockPath: filepath.Join(in.Dir, ".rocefab-apply.lock")}
	ignoreHostKeys, _ := cmd.Flags().GetBool(routing.IgnoreHostKeysFlag)
	r, ids, err := routing.Reach(routing.Options{Dir: in.Dir, Devices: fab.Devices, Reached: devs,
		Inventory: via.inventory, Plaintext: via.plaintext, IgnoreHostKeys: ignoreHostKeys, LockPath: s.lockPath,
		Warn: cmd.ErrOrStderr(), Passphrase: terminalPassphrase(cmd.ErrOrStderr()), StatePlatforms: statePlatforms})
	if len(ids) > 0 {
		summarizeDiags(cmd, ids)
		return nil, withCode(exitPlanError, fmt.Errorf("--inventory %s has %s first", via.inventory, fixFirst(ids.Count(diag.Error))))
	}
	if err != nil && via.inventory == "" {
		return nil, withCode(exitPlanError, err)
	}
	if err != nil {
		return nil, withCode(exitPlanError, fmt.Errorf("--inventory %s: %w", via.inventory, err))
	}
	s.route = r
	return s, nil
}

// close closes the route's connections.
func (s *session) close() { s.route.Close() }

// intentDigest is the digest of the intent's files (and its explicit
// topology's device list), as build's manifest records it.
func intentDigest(in *schema.Intent) (string, error) {
	files := slices.Clone(in.Files)
	if inv := in.Fabric.Topology.Inventory; inv != "" {
		if !filepath.IsAbs(inv) {
			inv = filepath.Join(in.Dir, inv)
		}
		files = append(files, inv)
	}
	d, err := outdir.DigestFiles(in.Dir, files)
	if err != nil {
		return "", fmt.Errorf("cannot read intent: %w", err)
	}
	return d, nil
}

// plan makes the plan; out is where it will be saved ("" for nowhere),
// which its intent path is written relative to.
func (s *session) plan(ctx context.Context, out string) (*targets.Plan, error) {
	digest, err := intentDigest(s.in)
	if err != nil {
		return nil, err
	}
	p, err := targets.PlanFabric(ctx, targets.FabricRequest{Fabric: s.fab, Devices: s.devs, Target: s.route.Target, Platforms: s.route.Platforms, Parallelism: s.parallelism})
	if err != nil {
		return nil, err
	}
	p.Rocefab, p.Fabric, p.Target, p.Only = version(), s.fab.Name, s.route.Name, s.only
	p.Intent = targets.IntentRef{Path: filepath.ToSlash(s.in.Path), SHA256: digest}
	if out != "" {
		if rel, err := relTo(filepath.Dir(out), s.in.Path); err == nil {
			p.Intent.Path = rel
		}
	}
	return p, nil
}

// relTo returns target's path relative to the directory base.
func relTo(base, target string) (string, error) { return routing.RelTo(base, target) }

// writePlanFile writes the plan whole: into a file beside it, renamed
// into place, so that an interrupted write never leaves half a plan.
// A file already at out is replaced only when it is a plan rocefab wrote:
// -o fabric.cue must never overwrite the intent.
func writePlanFile(ctx context.Context, out string, p *targets.Plan) error {
	if err := replaceablePlan(out); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".rocefab-*")
	if err != nil {
		return fmt.Errorf("-o %s: %w", out, err)
	}
	// Written as it is encoded: a fabric's plan is not held twice.
	werr := targets.WritePlan(ctxWriter{ctx, f}, p)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("-o %s: %w", out, err)
	}
	if err := os.Rename(f.Name(), out); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("-o %s: %w", out, err)
	}
	return nil
}

// ctxWriter stops a long write when ctx is done: a fabric's plan takes
// seconds to encode, and an interrupt (which the command catches, to stop
// cleanly) must not wait for the end of it.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(b []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, fmt.Errorf("interrupted: %w", err)
	}
	return c.w.Write(b)
}

// replaceablePlan returns an error unless nothing is at out or what is
// there is a plan file (any format version) that a plan may replace.
func replaceablePlan(out string) error {
	st, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("-o %s: %w", out, err)
	}
	if st.Mode().IsRegular() {
		var head map[string]json.RawMessage
		if b, err := os.ReadFile(out); err == nil && json.Unmarshal(b, &head) == nil && head["format_version"] != nil {
			return nil
		}
	}
	return fmt.Errorf("-o %s: the file exists and is not a rocefab plan; rocefab never overwrites a file it did not write: choose another name", out)
}

// actionMark is the sign a plan line starts with, as Terraform's.
var actionMark = map[targets.Action]string{
	targets.Create: "+", targets.Update: "~", targets.Unreachable: "!", targets.Failed: "x", targets.Unsupported: "?",
}

// printPlan writes the text view of a plan: the devices to change with
// their changes and remediation, devices with the same changes once (a
// fabric's leaves, or its servers, usually share them), then the devices
// that could not be planned, then the summary. Unchanged devices are

// alignWidth is the longest change text the disruption column is aligned
// after.
const alignWidth = 120

// counted, not listed.
func printPlan(w io.Writer, p *targets.Plan) {
	fmt.Fprintf(w, "Plan for %s: %s, running configurations from %s\n", p.Fabric, diag.Plural(len(p.Devices), "device", "devices"), p.Target)
	var pending []targets.PendingCommit
	for _, d := range p.Devices {
		if d.Pending != nil {
			pending = append(pending, *d.Pending)
		}
	}
	if len(pending) > 0 {
		fmt.Fprintln(w)
		printPending(w, pending)
		fmt.Fprintln(w, "  The plan below reads what they run now; rocefab apply settles them before it plans.")
	}
	groups := changeGroups(p.Devices)
	if n := planLines(groups); n > maxPlanLines {
		printCounts(w, groups, n)
	} else {
		printGroups(w, groups)
	}
	var trouble bool
	for _, d := range p.Devices {
		if d.Action == targets.Unreachable || d.Action == targets.Failed {
			if !trouble {
				fmt.Fprintln(w)
				trouble = true
			}
			fmt.Fprintf(w, "%s %s (%s): %s: %s\n", actionMark[d.Action], d.Device, deviceKind(d), d.Action, d.Reason)
		}
	}
	// Unsupported devices share a reason per platform: one line per
	// reason, naming the devices.
	var reasons []string
	byReason := map[string][]string{}
	for _, d := range p.Devices {
		if d.Action == targets.Unsupported {
			if byReason[d.Reason] == nil {
				reasons = append(reasons, d.Reason)
			}
			byReason[d.Reason] = append(byReason[d.Reason], d.Device)
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintln(w)
	}
	for _, r := range reasons {
		fmt.Fprintf(w, "? %s unsupported: %s: %s\n", diag.Plural(len(byReason[r]), "device", "devices"), r, someNames(byReason[r], 6))
	}
	fmt.Fprintf(w, "\nPlan: %s\n", p.Summary())
}

// printGroups writes each group of devices to change with its changes
// and remediation.
func printGroups(w io.Writer, groups []changeGroup) {
	for _, cg := range groups {
		g := cg.devices
		d := g[0]
		// The first device's changes and remediation whole, while it is
		// shown.
		changes, rem, err := d.Body()
		if err != nil {
			fmt.Fprintf(w, "\n%s %s (%s): %s: %v\n", actionMark[d.Action], d.Device, deviceKind(d), d.Action, err)
			continue
		}
		d.Changes, d.Remediation, d.Shared = changes, rem, nil
		if len(g) == 1 {
			fmt.Fprintf(w, "\n%s %s (%s): %s, %s, %s\n", actionMark[d.Action], d.Device, deviceKind(d), d.Action,
				diag.Plural(len(d.Changes), "change", "changes"), d.Disruption)
		} else {
			names := make([]string, len(g))
			for i, x := range g {
				names[i] = x.Device
			}
			kind := deviceKind(d)
			for _, x := range g[1:] {
				if deviceKind(x) != kind {
					kind = d.Platform + " " + string(d.Role)
				}
			}
			fmt.Fprintf(w, "\n%s %d devices (%s): %s: %s, %s each, %s\n", actionMark[d.Action], len(g), kind,
				someNames(names, 6), d.Action, diag.Plural(len(d.Changes), "change", "changes"), d.Disruption)
		}
		// The disruption column lines up over the changes that fit in
		// alignWidth; a longer change (a host's tc filters) keeps its label
		// right after it rather than pushing every other label off screen.
		width := 0
		for _, c := range d.Changes {
			if n := utf8.RuneCountInString(changeText(c)); n <= alignWidth {
				width = max(width, n)
			}
		}
		for _, c := range d.Changes {
			t := changeText(c)
			pad := max(width-utf8.RuneCountInString(t), 0)
			label := string(c.Disruption)
			if c.Method != "" {
				// SONiC: the way the switch's release takes it.
				label += " by " + c.Method
			}
			fmt.Fprintf(w, "    %s%s  [%s]\n", t, strings.Repeat(" ", pad), label)
		}
		r := d.Remediation
		if r == nil {
			continue
		}
		same := true
		for _, x := range g[1:] {
			_, xr, err := x.Body()
			same = same && err == nil && xr != nil && xr.Format == r.Format && bytes.Equal(xr.Content, r.Content)
			if !same {
				break
			}
		}
		head := fmt.Sprintf("remediation (%s)", r.Format)
		if !same {
			head = fmt.Sprintf("remediation of %s (%s; each device has its own, --format json shows them)", d.Device, r.Format)
		}
		if !utf8.Valid(r.Content) {
			fmt.Fprintf(w, "  %s: %d bytes, not text (--format json shows it)\n", head, len(r.Content))
			continue
		}
		fmt.Fprintf(w, "  %s:\n", head)
		for l := range strings.Lines(string(r.Content)) {
			fmt.Fprintf(w, "    | %s\n", clip(strings.TrimRight(l, "\r\n")))
		}
	}
}

// maxPlanLines is the most lines the text view of a plan lists changes and
// remediations in; a larger plan (the first of a fabric, where every
// device has changes of its own) is counted instead, and --format json
// has it whole.
const maxPlanLines = 5000

// planLines is how many lines printGroups would write for groups.
func planLines(groups []changeGroup) int {
	n := 0
	for _, g := range groups {
		n += g.lines
	}
	return n
}

// printCounts writes, for a plan too large to list, the devices to change
// counted by action, role and platform, with their changes and worst
// disruption.
func printCounts(w io.Writer, groups []changeGroup, lines int) {
	type kind struct {
		action   targets.Action
		role     ir.Role
		platform string
	}
	type tally struct {
		devices, changes int
		worst            renderers.Disruption
	}
	counts := map[kind]*tally{}
	var kinds []kind
	for _, g := range groups {
		for _, d := range g.devices {
			k := kind{d.Action, d.Role, d.Platform}
			c := counts[k]
			if c == nil {
				c = &tally{worst: renderers.Hitless}
				counts[k] = c
				kinds = append(kinds, k)
			}
			c.devices++
			c.changes += g.changes
			c.worst = renderers.Worst(c.worst, d.Disruption)
		}
	}
	slices.SortFunc(kinds, func(a, b kind) int {
		return cmp.Or(cmp.Compare(a.role.Rank(), b.role.Rank()), strings.Compare(a.platform, b.platform), strings.Compare(string(a.action), string(b.action)))
	})
	fmt.Fprintf(w, "\nThe changes and remediations take %d lines, too many to list: the devices to change by role and platform (--format json, or -o PLAN, has every device's):\n", lines)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "   \taction\trole\tplatform\tdevices\tchanges\tworst disruption")
	for _, k := range kinds {
		c := counts[k]
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%d\t%s\n", actionMark[k.action], k.action, k.role, k.platform, c.devices, c.changes, c.worst)
	}
	tw.Flush()
}

// changeGroup is devices with the same changes.
type changeGroup struct {
	devices []targets.DevicePlan
	// changes is the number of each device's changes, lines those of the
	// group's text (printGroups).
	changes, lines int
}

// changeGroups returns the devices to change, in the order of each
// group's first device: when more than listEach devices change, those
// with the same action, platform, role and changes together (by their
// outline's digest of them). A device whose changes cannot be read is a
// group of its own.
func changeGroups(ds []targets.DevicePlan) []changeGroup {
	var out []changeGroup
	// By the digest of what a group shares: the changes of a fabric's
	// first plan take gigabytes, which the keys must not hold again.
	at := map[[sha256.Size]byte]int{}
	for _, d := range ds {
		if !d.Action.Changes() {
			continue
		}
		// The outline, not the changes: a fabric's first plan shares
		// gigabytes of them, which are not decoded to be counted.
		o, err := d.Outline()
		k := sha256.New()
		fmt.Fprintf(k, "%s\x00%s\x00%s\x00%s\x00", d.Action, d.Platform, d.Role, d.Disruption)
		if err != nil {
			fmt.Fprintf(k, "%s\x00", d.Device)
		}
		k.Write(o.ChangesDigest[:])
		key := [sha256.Size]byte(k.Sum(nil))
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, changeGroup{changes: o.Changes, lines: 2 + o.Changes + o.RemediationLines})
		}
		out[i].devices = append(out[i].devices, d)
	}
	n := 0
	for _, g := range out {
		n += len(g.devices)
	}
	if n > listEach {
		return out
	}
	// A few devices are easier to read each under its own name.
	var each []changeGroup
	for _, g := range out {
		for _, d := range g.devices {
			each = append(each, changeGroup{devices: []targets.DevicePlan{d}, changes: g.changes, lines: g.lines})
		}
	}
	return each
}

// listEach is the most changing devices a plan lists each under its own
// name; more are grouped by their changes.
const listEach = 12

// maxLine is the longest remediation line a plan shows; a longer one (a
// host's settings file, carried whole) is cut, and --format json has it.
const maxLine = 160

func clip(l string) string {
	if utf8.RuneCountInString(l) <= maxLine {
		return l
	}
	return string([]rune(l)[:maxLine]) + fmt.Sprintf("… (%d bytes; --format json shows the line whole)", len(l))
}

// deviceKind says what a device is: "eos leaf, rail 0".
func deviceKind(d targets.DevicePlan) string {
	s := d.Platform + " " + string(d.Role)
	if d.Rail != nil {
		s += fmt.Sprintf(", rail %d", *d.Rail)
	}
	return s
}

// changeText is one change as a plan line shows it.
func changeText(c renderers.Change) string {
	val := func(v *string) string {
		if *v == "" {
			return ""
		}
		return " " + strconv.Quote(*v)
	}
	switch {
	case c.Before == nil:
		return "+ " + c.Path + val(c.After)
	case c.After == nil:
		return "- " + c.Path + val(c.Before)
	}
	return fmt.Sprintf("~ %s %s -> %s", c.Path, strconv.Quote(*c.Before), strconv.Quote(*c.After))
}

// someNames lists names, the first few and the last when there are many.
func someNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … %s (--format json lists every one)", strings.Join(names[:n-1], ", "), names[len(names)-1])
}

// printPending says which devices hold an unconfirmed commit, and when
// each rolls back by itself.
func printPending(w io.Writer, pending []targets.PendingCommit) {
	verb := "hold"
	if len(pending) == 1 {
		verb = "holds"
	}
	fmt.Fprintf(w, "! %s %s a commit that was pushed and never confirmed (an apply that did not finish): not converged until apply confirms it or rolls it back:\n",
		diag.Plural(len(pending), "device", "devices"), verb)
	for _, pc := range pending {
		line := "    " + pc.Device
		if pc.Deadline.IsZero() {
			line += ": no timer takes it back (the apply that kept it ended): it stays until apply settles it"
		} else {
			line += ": rolls back at " + pc.Deadline.UTC().Format(time.RFC3339)
		}
		fmt.Fprintln(w, line)
	}
}

// fixFirst is "1 error: fix it" or "N errors: fix them", the pronoun
// agreeing with the count.
func fixFirst(n int) string {
	if n == 1 {
		return "1 error: fix it"
	}
	return diag.Plural(n, "error", "errors") + ": fix them"
}
