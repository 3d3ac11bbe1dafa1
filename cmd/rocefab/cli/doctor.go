package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets/doctor"
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

The text report is grouped by origin; --format json prints the report (findings with evidence,
victims and paths).

--out FILE writes the quarantine plan of the findings: a Slurm drain (scontrol update
State=DRAIN) of the servers each finding names, and the shut of each faulty cable's switch port
(that interface administratively down, with commit-confirm); nothing is drained or shut until
apply FILE runs it. --release QUARANTINE --out FILE writes the plan that undoes those drains
(State=UNDRAIN) and brings up the ports that apply of the quarantine shut.

Exit codes:
  0  healthy: no finding
  1  doctor could not run (the intent, a snapshot, or no counter sampled twice)
  2  findings`

// doctorMemoryLimit is the soft limit of the garbage collector while
// doctor runs, unless GOMEMLIMIT says otherwise. A window of a
// 100,000-GPU fabric (5.7 million series) and the compiled fabric hold
// about 600 MB that stay alive until the report is written: under
// rocefab's default limit of 512 MiB the collector would run back to back
// for nothing to free (it doubled doctor's CPU time). Most of the window
// holds no pointers, so each collection is cheap; this limit keeps the
// process under the 1 GiB doctor is held to at that scale.
const doctorMemoryLimit = 896 << 20

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
}

func newDoctorCmd() *cobra.Command {
	a := doctorArgs{}
	cmd := &cobra.Command{
		Use:   "doctor [PATH] --snapshot FILE...",
		Short: "Find the origin of a pause storm and faulty cables from the fabric's counters",
		Long:  doctorDoc,
		Example: `  rocefab doctor examples/pod-2048 --prometheus http://prometheus:9090 --window 5m
  rocefab doctor examples/pod-2048 --snapshot t0.prom --snapshot t1.prom --interval 30s
  rocefab doctor . --snapshot window.prom --format json`,
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
	cmd.Flags().StringVar(&a.out, "out", "", "write the quarantine plan (the Slurm drains and link shuts of the findings) to this file, for apply")
	cmd.Flags().StringVar(&a.release, "release", "", "with --out: write the release plan of this quarantine plan instead (no counters are read)")
	return cmd
}

func runDoctor(cmd *cobra.Command, a doctorArgs, args []string) error {
	if a.format != "text" && a.format != "json" {
		return withCode(exitDoctorError, fmt.Errorf("--format %q: allowed are text, json", a.format))
	}
	if a.release != "" {
		if a.out == "" {
			return withCode(exitDoctorError, errors.New("--release: give --out FILE for the release plan"))
		}
		if len(a.snapshots) > 0 || a.prometheus != "" || len(args) > 0 {
			return withCode(exitDoctorError, errors.New("--release reads no counters and no PATH: the quarantine plan names its intent and servers"))
		}
		if err := releasePlan(a.release, a.out, cmd.ErrOrStderr()); err != nil {
			return withCode(exitDoctorError, err)
		}
		return nil
	}
	if len(a.snapshots) == 0 && a.prometheus == "" {
		return withCode(exitDoctorError, errors.New("no counters: give --prometheus URL or --snapshot FILE (twice, or one file with timestamps)"))
	}
	if len(a.snapshots) > 0 && a.prometheus != "" {
		return withCode(exitDoctorError, errors.New("--prometheus and --snapshot: allowed is one source of counters"))
	}
	end := time.Now()
	if a.end != "" {
		var err error
		if end, err = parseTime(a.end); err != nil {
			return withCode(exitDoctorError, err)
		}
	}
	if a.window <= 0 {
		return withCode(exitDoctorError, fmt.Errorf("--window %s: allowed is a duration above 0", a.window))
	}
	if a.pauseRate <= 0 {
		return withCode(exitDoctorError, fmt.Errorf("--pause-rate %g: allowed is a rate above 0", a.pauseRate))
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(doctorMemoryLimit))
		if _, set := os.LookupEnv("GOGC"); !set {
			// Nearly all doctor allocates stays alive until the report
			// is written: collecting as the heap doubles frees little
			// and rescans the fabric each time. The limit alone paces
			// the collector (on hyperscale-100k 7.1 to 7.6 s of CPU and
			// a 931 MB peak against 8.3 to 9.5 s and 896 MB).
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
		}
	}
	path := pathArg(args)
	var in *schema.Intent
	var fab *ir.Fabric
	load := func() (*ir.Fabric, error) {
		var err error
		in, fab, err = loadFabric(cmd, path, exitDoctorError)
		return fab, err
	}
	source := strings.Join(a.snapshots, ", ")
	read := func() (*telemetry.Window, error) {
		if a.prometheus == "" {
			w, err := readSnapshots(a.snapshots, a.interval)
			if err != nil {
				return nil, withCode(exitDoctorError, err)
			}
			return w, nil
		}
		w := telemetry.NewWindow()
		source = fmt.Sprintf("%s from %s to %s", a.prometheus, end.Add(-a.window).UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
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
		return withCode(exitDoctorError, fmt.Errorf("no counter of %s's ports was sampled twice in %s (%d name devices or ports it lacks): see docs/doctor.md for the metrics and labels doctor reads",
			fab.Name, source, rep.Unmatched))
	}
	if a.out != "" {
		digest, err := intentDigest(in)
		if err != nil {
			return withCode(exitDoctorError, err)
		}
		q := doctor.NewQuarantine(rep, doctor.IntentRef{SHA256: digest}, version(), source)
		if err := writeQuarantine(q, in.Path, a.out); err != nil {
			return withCode(exitDoctorError, err)
		}
		// On stderr, so that --format json keeps stdout to the report.
		fmt.Fprintf(cmd.ErrOrStderr(), "Wrote the quarantine plan %s: it drains %s in Slurm and shuts %s when applied (rocefab apply %s).\n",
			a.out, diag.Plural(len(q.Nodes()), "server", "servers"), diag.Plural(len(q.Shuts), "switch port", "switch ports"), a.out)
	}
	out := cmd.OutOrStdout()
	if a.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return withCode(exitDoctorError, err)
		}
	} else {
		printDoctor(out, rep, a.victims)
	}
	if len(rep.Findings) > 0 {
		return withCode(exitDoctorFindings, nil)
	}
	return nil
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

// readSnapshots reads the files, oldest first, into a window.
func readSnapshots(files []string, interval time.Duration) (*telemetry.Window, error) {
	w := telemetry.NewWindow()
	for i, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		err = w.Read(f, file, int64(i)*interval.Milliseconds())
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return w, nil
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
