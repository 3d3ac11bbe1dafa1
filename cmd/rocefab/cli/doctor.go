package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/routing"
	"github.com/rocefab/rocefab/targets/telemetry"
)

const doctorDoc = `Diagnose a running fabric from its counters, on the compiled topology: trace a pause storm
upstream to its origin (the port that sends PFC pauses without receiving any) and list the victims
that only propagate it, tell a port that pauses without throughput (a gray failure) or fires PFC
while its lossless queue marks no ECN, report FCS errors, symbol errors and carrier
transitions on either end of a cable, NICs that ignore the CNPs they receive (DCQCN off), and
drops on a lossless queue. Each finding names the servers, tenants and scheduler blocks it
touches, and what a quarantine would drain or shut.

The counters come from a Prometheus server (--prometheus URL: two instant queries through its
HTTP API, at the start and the end of the --window that ends at --end, now unless told), or from
snapshot files in the Prometheus text exposition format: node_exporter's
ethtool and infiniband collectors on servers, gnmic's Prometheus output of OpenConfig paths on
switches, or a file written by hand (docs/doctor.md lists every metric and label read). Give two
snapshots or more (a scrape each, --interval apart unless the samples carry timestamps), or one
file holding each series at two timestamps; rates are taken between each series' first and last
sample.

--sample DURATION reads the counters from the devices themselves, for a fabric without
Prometheus: every device of --inventory (the file plan and apply take) is read twice, DURATION
apart, through its transport (switches with a gNMI Get of their OpenConfig counters, or over SSH
with their counters command's JSON: EOS show interfaces | json, NX-OS show interface | json,
SONiC's COUNTERS_DB through sonic-db-dump; servers with ethtool -S and the RDMA devices'
hw_counters over SSH), up to --parallelism at once, and the reads are diagnosed as two scrapes of
the collectors. A device that cannot be read is reported and the rest are diagnosed; NVUE switches
reached over SSH are not sampled (no public source shows their counters command's JSON): reach
them over gNMI, or use --prometheus.

The text report is grouped by origin; --format json prints the report (findings with evidence,
victims and paths).

--out FILE writes the quarantine plan of the findings: a Slurm drain (scontrol update
State=DRAIN) of the servers each finding names, and the shut of each faulty cable's switch port
(that interface administratively down, with commit-confirm); nothing is drained or shut until
apply FILE runs it. --drain kubernetes (or slurm,kubernetes) cordons and taints the servers'
Kubernetes nodes (kubectl cordon, kubectl taint rocefab.io/quarantine=KIND:NoSchedule) instead
of (or as well as) draining them in Slurm. --release QUARANTINE --out FILE writes the plan that
undoes those drains (State=UNDRAIN), removes the taints and uncordons the nodes that apply of the
quarantine cordoned, and brings up the ports it shut.

Exit codes:
  0  healthy: no finding
  1  doctor could not run (the intent, a snapshot, or no counter sampled twice), or with
     --sample some device could not be read and the rest show no finding
  2  findings`

// diagnosisMemory sets the collector for a diagnosis (doctor's, and
// apply's of a quarantine plan's evidence) and returns what restores it:
// the soft limit doctorMemoryLimit unless GOMEMLIMIT is set, and, unless
// GOGC is set too, no collection as the heap doubles: nearly all a
// diagnosis allocates stays alive until its report, so collecting as the
// heap doubles frees little and rescans the fabric each time. The limit
// alone paces the collector (on hyperscale-100k 7.1 to 7.6 s of CPU and a
// 931 MB peak against 8.3 to 9.5 s and 896 MB).
func diagnosisMemory() (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	limit := debug.SetMemoryLimit(doctorMemoryLimit)
	percent := -2 // not changed
	if _, set := os.LookupEnv("GOGC"); !set {
		percent = debug.SetGCPercent(-1)
	}
	return func() {
		if percent != -2 {
			debug.SetGCPercent(percent)
		}
		debug.SetMemoryLimit(limit)
	}
}

// doctorMemoryLimit is the soft limit of the garbage collector while
// doctor runs, unless GOMEMLIMIT says otherwise. A window of a
// 100,000-GPU fabric (5.9 million series), the compiled fabric and its
// model hold 690 to 750 MB that stay alive until the report is written:
// under rocefab's default limit of 512 MiB the collector would run back
// to back for nothing to free (it doubled doctor's CPU time). What a
// diagnosis of that fabric allocates in all (about 930 MB, the garbage
// being the compilation's and the window's outgrown tables) fits under
// this limit, so the collector never runs there: each collection marked
// the fabric and the model again for little to free (at 800 MiB three
// ran, for about 0.9 s more CPU in five alternating runs, with the peak
// 110 MB lower). The limit still keeps the process under the 1 GiB
// doctor is held to at that scale (a 919 MiB peak), and a larger fabric
// is collected as it nears the limit.
const doctorMemoryLimit = 960 << 20

// Doctor's exit codes follow plan --detailed-exitcode.
const (
	exitDoctorError    = 1
	exitDoctorFindings = 2
)

type doctorArgs struct {
	snapshots  []string
	interval   time.Duration
	prometheus string
	window     time.Duration
	end        string
	format     string
	pauseRate  float64
	victims    int
	out        string
	release    string
	// drain is --drain: the schedulers the quarantine plan drains in.
	drain string
	// sample is the time between the two reads of --sample; inventory,
	// parallelism and plaintext say how the devices are reached.
	sample      time.Duration
	inventory   string
	parallelism int
	plaintext   bool
	// cpuProfile, when set, is where a CPU profile of the run is written.
	cpuProfile string
}

func newDoctorCmd() *cobra.Command {
	a := doctorArgs{}
	cmd := &cobra.Command{
		Use:   "doctor [PATH] --snapshot FILE...",
		Short: "Find the origin of a pause storm and faulty cables from the fabric's counters",
		Long:  doctorDoc,
		Example: `  rocefab doctor examples/pod-2048 --prometheus http://prometheus:9090 --window 5m
  rocefab doctor examples/pod-2048 --snapshot t0.prom --snapshot t1.prom --interval 30s
  rocefab doctor . --snapshot window.prom --format json
  rocefab doctor examples/pod-2048 --sample 30s --inventory inventory.json`,
		// Exit 2 means findings here: a wrong argument or flag could not
		// run, exit 1.
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(cmd, args); err != nil {
				return withCode(exitDoctorError, err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runDoctor(cmd, a, args) },
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(exitDoctorError, err) })
	def := doctor.DefaultOptions()
	cmd.Flags().StringArrayVar(&a.snapshots, "snapshot", nil, "a counter snapshot in the Prometheus text format (repeat, oldest first)")
	cmd.Flags().DurationVar(&a.interval, "interval", 0, "time between snapshots whose samples carry no timestamp")
	cmd.Flags().StringVar(&a.prometheus, "prometheus", "", "read the counters from this Prometheus server's HTTP API (e.g. http://prometheus:9090)")
	cmd.Flags().DurationVar(&a.window, "window", 5*time.Minute, "with --prometheus: the window the rates are taken over")
	cmd.Flags().StringVar(&a.end, "end", "", "with --prometheus: the window's end, RFC 3339 or Unix seconds (default now)")
	cmd.Flags().StringVar(&a.format, "format", "text", "output format: text or json")
	cmd.Flags().Float64Var(&a.pauseRate, "pause-rate", def.PauseRate, "pause frames per second above which a port counts as pausing")
	cmd.Flags().IntVar(&a.victims, "victims", 10, "victims listed per origin in the text report (0: all)")
	cmd.Flags().VarP(outOrFormat{&a.out, &a.format}, "out", "o", "write the quarantine plan (the Slurm drains and link shuts of the findings) to this file, for apply; -o json prints the report as --format json does")
	cmd.Flags().StringVar(&a.release, "release", "", "with --out: write the release plan of this quarantine plan instead (no counters are read)")
	cmd.Flags().StringVar(&a.drain, "drain", doctor.SchedulerSlurm, "with --out: the schedulers the quarantine drains the servers in: slurm, kubernetes (cordon and taint their nodes), or slurm,kubernetes")
	cmd.Flags().DurationVar(&a.sample, "sample", 0, "read every device's counters twice, this long apart, through the transports --inventory gives")
	cmd.Flags().StringVar(&a.inventory, "inventory", "", "with --sample: the access inventory that reaches the devices (as plan takes it)")
	cmd.Flags().IntVar(&a.parallelism, "parallelism", targets.DefaultParallelism, "with --sample: devices read at once")
	cmd.Flags().BoolVar(&a.plaintext, "insecure-plaintext", false, "with --sample: gNMI without TLS (lab only)")
	cmd.Flags().StringVar(&a.cpuProfile, "cpuprofile", "", "write a CPU profile of the diagnosis to this file (for `go tool pprof`)")
	addSSHFlags(cmd)
	return cmd
}

func runDoctor(cmd *cobra.Command, a doctorArgs, args []string) error {
	if a.format != "text" && a.format != "json" {
		return withCode(exitDoctorError, fmt.Errorf("--format %q: allowed are text, json", a.format))
	}
	schedulers, err := parseDrain(a.drain)
	if err != nil {
		return withCode(exitDoctorError, err)
	}
	if cmd.Flags().Changed("drain") && a.out == "" {
		return withCode(exitDoctorError, errors.New("--drain says where the quarantine plan drains the servers: give --out FILE for the plan"))
	}
	if a.release != "" {
		if a.out == "" {
			return withCode(exitDoctorError, errors.New("--release: give --out FILE for the release plan"))
		}
		if cmd.Flags().Changed("drain") {
			return withCode(exitDoctorError, errors.New("--drain goes with a quarantine plan: its release undoes what the quarantine plan drains, in the same schedulers"))
		}
		if len(a.snapshots) > 0 || a.prometheus != "" || a.sample != 0 || len(args) > 0 {
			return withCode(exitDoctorError, errors.New("--release reads no counters and no PATH: the quarantine plan names its intent and servers"))
		}
		if err := releasePlan(a.release, a.out, cmd.ErrOrStderr()); err != nil {
			return withCode(exitDoctorError, err)
		}
		return nil
	}
	if err := a.checkSource(); err != nil {
		return withCode(exitDoctorError, err)
	}
	end := time.Now()
	if a.end != "" {
		var err error
		if end, err = parseTime(a.end); err != nil {
			return withCode(exitDoctorError, err)
		}
	}
	// The queries take whole seconds: the plan records the end so.
	end = end.Truncate(time.Second)
	if a.window <= 0 {
		return withCode(exitDoctorError, fmt.Errorf("--window %s: allowed is a duration above 0", a.window))
	}
	if a.pauseRate <= 0 {
		return withCode(exitDoctorError, fmt.Errorf("--pause-rate %g: allowed is a rate above 0", a.pauseRate))
	}
	stop, err := startCPUProfile(a.cpuProfile)
	if err != nil {
		return withCode(exitDoctorError, err)
	}
	defer stop()
	defer diagnosisMemory()()
	path := pathArg(args)
	var in *schema.Intent
	var fab *ir.Fabric
	load := func() (*ir.Fabric, error) {
		var err error
		in, fab, err = loadFabric(cmd, path, exitDoctorError)
		return fab, err
	}
	source := strings.Join(a.snapshots, ", ")
	var unsampled []telemetry.Unsampled
	var snapshotSums, sampleSums []string
	if a.sample > 0 {
		// The devices are known before they are read: the fabric is
		// loaded first.
		if _, err := load(); err != nil {
			return err
		}
		loaded := fab
		load = func() (*ir.Fabric, error) { return loaded, nil }
		source = fmt.Sprintf("two samples %s apart through inventory %s", a.sample, a.inventory)
	}
	read := func() (*telemetry.Window, error) {
		if a.sample > 0 {
			w, u, sums, err := sampleFabric(cmd, in, fab, a)
			unsampled, sampleSums = u, sums
			if err != nil {
				return nil, withCode(exitDoctorError, err)
			}
			return w, nil
		}
		if a.prometheus == "" {
			w, sums, err := readSnapshots(a.snapshots, a.interval, a.out != "")
			if err != nil {
				return nil, withCode(exitDoctorError, err)
			}
			snapshotSums = sums
			return w, nil
		}
		w := telemetry.NewWindow()
		source = fmt.Sprintf("%s from %s to %s", doctor.StripCredentials(a.prometheus), end.Add(-a.window).UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
		if err := (telemetry.Prometheus{URL: a.prometheus}).Read(cmd.Context(), w, end.Add(-a.window), end); err != nil {
			return nil, withCode(exitDoctorError, err)
		}
		return w, nil
	}
	md, w, err := doctor.Prepare(load, read)
	if err != nil {
		return err
	}
	opt := doctor.DefaultOptions()
	opt.PauseRate = a.pauseRate
	rep := md.Diagnose(w, opt)
	if rep.Rates == 0 {
		if len(unsampled) > 0 {
			printUnsampled(cmd.ErrOrStderr(), unsampled, 20)
		}
		return withCode(exitDoctorError, fmt.Errorf("no counter of %s's ports was sampled twice in %s (%d name devices or ports it lacks): see docs/doctor.md for the metrics and labels doctor reads",
			fab.Name, source, rep.Unmatched))
	}
	if a.out != "" {
		digest, err := intentDigest(in)
		if err != nil {
			return withCode(exitDoctorError, err)
		}
		q, err := doctor.NewQuarantineIn(rep, doctor.IntentRef{SHA256: digest}, version(), source, schedulers)
		if err != nil {
			return withCode(exitDoctorError, fmt.Errorf("--drain %s: %w", a.drain, err))
		}
		q.Evidence.PauseRate = a.pauseRate
		switch {
		case a.sample > 0:
			files := doctor.SampleFiles(a.out)
			q.Evidence.Samples = evidenceFiles(a.out, files[:], sampleSums)
		case a.prometheus != "":
			q.Evidence.Prometheus = doctor.NewPrometheusWindow(a.prometheus, end, a.window)
		default:
			q.Evidence.Snapshots = evidenceFiles(a.out, a.snapshots, snapshotSums)
			if a.interval != 0 {
				q.Evidence.Interval = a.interval.String()
			}
		}
		if err := writeQuarantine(q, in.Path, a.out); err != nil {
			return withCode(exitDoctorError, err)
		}
		var does []string
		if slices.Contains(schedulers, doctor.SchedulerSlurm) {
			does = append(does, "drains "+diag.Plural(len(q.Nodes()), "server", "servers")+" in Slurm")
		}
		if slices.Contains(schedulers, doctor.SchedulerKubernetes) {
			does = append(does, "cordons and taints "+diag.Plural(len(q.Cordons), "Kubernetes node", "Kubernetes nodes"))
		}
		// On stderr, so that --format json keeps stdout to the report.
		fmt.Fprintf(cmd.ErrOrStderr(), "Wrote the quarantine plan %s: it %s and shuts %s when applied (rocefab apply %s).\n",
			a.out, strings.Join(does, ", "), diag.Plural(len(q.Shuts), "switch port", "switch ports"), a.out)
	}
	out := cmd.OutOrStdout()
	if a.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		var v any = rep
		if a.sample > 0 {
			v = sampledReport{Report: rep, Unsampled: unsampled}
		}
		if err := enc.Encode(v); err != nil {
			return withCode(exitDoctorError, err)
		}
	} else {
		printDoctor(out, rep, a.victims)
		printUnsampled(out, unsampled, 20)
	}
	if len(rep.Findings) > 0 {
		return withCode(exitDoctorFindings, nil)
	}
	if len(unsampled) > 0 {
		return withCode(exitDoctorError, fmt.Errorf("%s could not be sampled: the rest show no finding, which does not make the fabric healthy",
			diag.Plural(len(unsampled), "device", "devices")))
	}
	return nil
}

// parseDrain reads --drain: scheduler names, comma-separated, each of
// doctor.Schedulers, returned once each in the order given.
func parseDrain(s string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(doctor.Schedulers, name) {
			return nil, fmt.Errorf("--drain %q: %q is no scheduler: allowed are %s, or both comma-separated (%s)",
				s, name, strings.Join(doctor.Schedulers, ", "), strings.Join(doctor.Schedulers, ","))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// checkSource checks that the flags name one source of counters.
func (a doctorArgs) checkSource() error {
	n := 0
	for _, given := range []bool{len(a.snapshots) > 0, a.prometheus != "", a.sample != 0} {
		if given {
			n++
		}
	}
	switch {
	case n == 0:
		return errors.New("no counters: give --prometheus URL, --snapshot FILE (twice, or one file with timestamps) or --sample DURATION with --inventory FILE")
	case n > 1:
		return errors.New("--prometheus, --snapshot and --sample: allowed is one source of counters")
	case a.sample < 0:
		return fmt.Errorf("--sample %s: allowed is a duration above 0", a.sample)
	case a.sample > 0 && a.inventory == "":
		return errors.New("--sample reads the devices through the transports of an access inventory: give --inventory FILE (as plan takes it)")
	case a.sample == 0 && (a.inventory != "" || a.plaintext):
		return errors.New("--inventory and --insecure-plaintext go with --sample: the other sources read no device")
	case a.parallelism < 1:
		return fmt.Errorf("--parallelism %d: at least 1", a.parallelism)
	}
	return nil
}

// sampledReport is the JSON report of --sample: the diagnosis and the
// devices that could not be read.
type sampledReport struct {
	doctor.Report
	Unsampled []telemetry.Unsampled `json:"unsampled"`
}

// printUnsampled lists the devices --sample could not read, the first n.
func printUnsampled(out io.Writer, unsampled []telemetry.Unsampled, n int) {
	if len(unsampled) == 0 {
		return
	}
	fmt.Fprintf(out, "\nnot sampled: %s (the rest were diagnosed)\n", diag.Plural(len(unsampled), "device", "devices"))
	for i, u := range unsampled {
		if i == n {
			fmt.Fprintf(out, "  ... %d more (--format json lists them all)\n", len(unsampled)-i)
			break
		}
		fmt.Fprintf(out, "  %s\n", u.Error)
	}
}

// parseTime reads --end: RFC 3339, or Unix seconds.
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(secs, 0), nil
	}
	return time.Time{}, fmt.Errorf("--end %q: allowed are an RFC 3339 time (2026-12-02T04:30:00Z) or Unix seconds", s)
}

// readSnapshots reads the files, oldest first, into a window, and, when
// digest is set (a quarantine plan is written), returns the SHA-256 of
// each as it was read, the evidence the plan records.
func readSnapshots(files []string, interval time.Duration, digest bool) (*telemetry.Window, []string, error) {
	w := telemetry.NewWindow()
	var sums []string
	if digest {
		sums = make([]string, len(files))
	}
	for i, file := range files {
		sum, err := doctor.ReadSnapshot(w, file, int64(i)*interval.Milliseconds(), digest)
		if err != nil {
			return nil, nil, err
		}
		if digest {
			sums[i] = sum
		}
	}
	return w, sums, nil
}

func printDoctor(out io.Writer, rep doctor.Report, maxVictims int) {
	fmt.Fprintf(out, "%s: %s over %gs", rep.Fabric, diag.Plural(rep.Rates, "counter", "counters"), rep.Seconds)
	if rep.Unmatched > 0 {
		fmt.Fprintf(out, " (%s naming no port of the fabric ignored)", diag.Plural(rep.Unmatched, "counter", "counters"))
	}
	fmt.Fprintln(out)
	if len(rep.Findings) == 0 {
		fmt.Fprintln(out, "healthy: no pause storm, no faulty cable")
		return
	}
	for _, f := range rep.Findings {
		fmt.Fprintf(out, "\n%s %s at %s: %s\n", f.Kind, f.Cause, f.Origin, f.Message)
		if f.Peer != nil {
			fmt.Fprintf(out, "  cable: %s <-> %s\n", f.Origin, *f.Peer)
		}
		if len(f.Ports) > 1 {
			fmt.Fprintf(out, "  pausing ports: %s\n", strings.Join(f.Ports, ", "))
		}
		if t := f.Touches; t.Servers > 0 {
			fmt.Fprintf(out, "  touches: %s", diag.Plural(t.Servers, "server", "servers"))
			if len(t.Tenants) > 0 {
				fmt.Fprintf(out, "; tenants %s", strings.Join(t.Tenants, ", "))
			}
			fmt.Fprintf(out, "; blocks %s", listSome(t.Blocks, 8))
			if len(t.Pods) > 0 {
				fmt.Fprintf(out, "; pods %s", listSome(t.Pods, 8))
			}
			fmt.Fprintln(out)
		}
		if len(f.Drain) > 0 || f.Shut != nil {
			var q []string
			if len(f.Drain) > 0 {
				q = append(q, "drain "+strings.Join(f.Drain, ", "))
			}
			if f.Shut != nil {
				q = append(q, "shut "+f.Shut.String())
			}
			fmt.Fprintf(out, "  quarantine: %s\n", strings.Join(q, "; "))
		}
		fmt.Fprintln(out, "  evidence:")
		for _, e := range f.Evidence {
			fmt.Fprintf(out, "    %s  %s/s over %gs\n", e.Series, perSecond(e.PerSecond), e.Seconds)
		}
		if len(f.Victims) == 0 {
			continue
		}
		prop := 0
		for _, v := range f.Victims {
			if v.Propagates {
				prop++
			}
		}
		fmt.Fprintf(out, "  victims: %d (%d propagate the storm)\n", len(f.Victims), prop)
		for i, v := range f.Victims {
			if maxVictims > 0 && i == maxVictims {
				fmt.Fprintf(out, "    ... %d more (--victims 0 or --format json lists them all)\n", len(f.Victims)-i)
				break
			}
			fmt.Fprintf(out, "    %s  via %s\n", v.Endpoint, strings.Join(v.Path, " -> "))
		}
	}
	fmt.Fprintf(out, "\n%s\n", diag.Plural(len(rep.Findings), "finding", "findings"))
}

// listSome joins the first n names and counts the rest.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// perSecond prints a rate whole when it is large and to two decimals when
// it is small, never in exponent form.
func perSecond(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// sampleFabric reads every device of fab twice through the transports
// the inventory gives them (telemetry.Sample), with a progress bar on a
// terminal.
func sampleFabric(cmd *cobra.Command, in *schema.Intent, fab *ir.Fabric, a doctorArgs) (*telemetry.Window, []telemetry.Unsampled, []string, error) {
	ignoreHostKeys, _ := cmd.Flags().GetBool(routing.IgnoreHostKeysFlag)
	r, ids, err := routing.Reach(routing.Options{Dir: in.Dir, Devices: fab.Devices, Inventory: a.inventory, Plaintext: a.plaintext,
		IgnoreHostKeys: ignoreHostKeys, Warn: cmd.ErrOrStderr(), Passphrase: terminalPassphrase(cmd.ErrOrStderr())})
	if len(ids) > 0 {
		summarizeDiags(cmd, ids)
		return nil, nil, nil, fmt.Errorf("--inventory %s has %s first", a.inventory, fixFirst(ids.Count(diag.Error)))
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--inventory %s: %w", a.inventory, err)
	}
	defer r.Close()
	var bar progress = noProgress{}
	if isTerminal(cmd.ErrOrStderr()) {
		bar = newSteps(cmd.ErrOrStderr())
	}
	defer bar.done()
	opt := telemetry.SampleOptions{Devices: fab.Devices, Reach: r.Counters(), Wait: a.sample,
		Parallelism: a.parallelism, Progress: sampleProgress{bar}}
	var rec *sampleRecord
	if a.out != "" {
		// The plan's evidence: both rounds, beside it.
		if rec, err = newSampleRecord(a.out); err != nil {
			return nil, nil, nil, err
		}
		defer rec.close()
		opt.Record = rec.writers()
	}
	w := telemetry.NewWindow()
	u, err := telemetry.Sample(cmd.Context(), w, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	var sums []string
	if rec != nil {
		if sums, err = rec.finish(); err != nil {
			return nil, nil, nil, err
		}
	}
	return w, u, sums, nil
}

// sampleProgress shows sampling on the steps of a progress display.
type sampleProgress struct{ p progress }

func (s sampleProgress) Step(what string, total int) { s.p.step(what, total) }
func (s sampleProgress) Add()                        { s.p.add() }
