package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/cmd/rocefab/outdir"
	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets/routing"
)

const buildDoc = `Compile an intent and write every artifact into DIR:

  DIR/inventory.json             the expanded fabric (devices and links), readable back as an explicit topology
  DIR/SUMMARY.md                 devices by role and platform, classes, derived thresholds, findings
  DIR/<switch>/<platform file>   eos.cfg, nvue.yaml, config_db.json or nxos.cfg, plus openconfig.json
                                 (compact, the gNMI payload; --openconfig indented to read it)
  DIR/<server>/host.conf         the server's NIC, ECN/DCQCN and tc settings, as data for the host runtime
  DIR/hosts/                     the host runtime (rocefab-host.sh: idempotent, --check reports drift) and
                                 its systemd unit rocefab-qos@.service, once for every server
  DIR/<server>/host.sh           runs the runtime with host.conf beside it (host.sh --check reports drift);
                                 with --emit host-script: the settings and the runtime in one script
  DIR/tenants/<name>.env         the tenant's NCCL environment
  DIR/slurm/, DIR/k8s/           the fabric's topology for schedulers: Slurm topology files, node labels, a Kueue Topology
  DIR/monitoring/                Prometheus rules and scrape configuration (prometheus.yml, targets/*.json),
                                 gnmic's configuration for the switches, node_exporter's flags for the servers

Output is byte-for-byte deterministic. The build is written into a new directory beside DIR and
put in DIR's place only when every file is written, so a failed or interrupted build leaves the
earlier one as it was. DIR/.rocefab-manifest.json lists every file a build wrote with its digest;
a later build replaces only those. A DIR holding anything else is refused and nothing is deleted;
so are files rocefab wrote and someone edited since (unless --replace-edited). DIR may not be, or
contain, the intent's directory or the working directory. A rebuild of an unchanged intent by the
same rocefab finds DIR up to date and writes nothing.

On a terminal, stderr shows each step as it runs (loading, compiling, reading the earlier build,
rendering with a count of devices, putting the build in place) and how long it took; -q, or a
stderr that is no terminal, shows none of it.

Exit codes:
  0  built (warnings, if any, are printed to stderr)
  1  findings that block the build (errors); nothing is written
  2  the intent could not be read, or the output could not be written (nothing was changed)`

type buildArgs struct {
	out           string
	only          string
	emit          []string
	quiet         bool
	replaceEdited bool
	cpuProfile    string
	openconfig    string
	// inventory is the access inventory (#Inventory) whose addresses
	// monitoring/gnmic.yaml dials; "" dials each switch by its name.
	inventory string
}

func newBuildCmd() *cobra.Command {
	a := buildArgs{}
	cmd := &cobra.Command{
		Use:     "build [PATH] -o DIR",
		Short:   "Compile an intent and render every device's configuration",
		Long:    buildDoc,
		Example: "  rocefab build examples/pod-2048 -o out\n  rocefab build . -o out --only 'leaf-r0-*'",
		Args:    cobra.MaximumNArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runBuild(cmd, a, args) },
	}
	cmd.Flags().StringVarP(&a.out, "out", "o", "", "output directory (required)")
	// --output was this flag's name before every command used -o/--out for
	// where output goes; it keeps working.
	cmd.Flags().StringVar(&a.out, "output", "", "output directory")
	_ = cmd.Flags().MarkHidden("output")
	cmd.Flags().StringVar(&a.only, "only", "", "render only devices whose name matches this glob (e.g. 'leaf-*')")
	cmd.Flags().StringSliceVar(&a.emit, "emit", nil, "extra outputs: model (each device's compiled model as <device>/model.json), host-script (each server's settings and the host runtime in one file, <server>/host.sh)")
	cmd.Flags().BoolVarP(&a.quiet, "quiet", "q", false, "print nothing but findings")
	cmd.Flags().StringVar(&a.openconfig, "openconfig", "compact", "how to write openconfig.json: compact (the gNMI payload), indented (for reading and review), or none")
	cmd.Flags().StringVar(&a.cpuProfile, "cpuprofile", "", "write a CPU profile of the build to this file (for `go tool pprof`)")
	cmd.Flags().StringVar(&a.inventory, "inventory", "", "the access inventory (CUE or JSON, #Inventory) whose switch addresses monitoring/gnmic.yaml dials; without it, each switch's name")
	cmd.Flags().BoolVar(&a.replaceEdited, "replace-edited", false, "replace files an earlier build wrote even when they were edited since (never files it did not write)")
	return cmd
}

func runBuild(cmd *cobra.Command, a buildArgs, args []string) error {
	start := time.Now()
	// Rendering hands each written file's buffer back to the renderers, so
	// a build makes about a gigabyte of garbage on the 100,000-GPU example
	// (it made four before) and keeps little alive. Collecting less often
	// than the default now costs less than the page faults of a larger
	// heap: at 200 that example builds in 3.2-4.2 s (4.3-4.8 s of user CPU)
	// at 470-520 MB against 3.6-4.1 s (5.0-5.4 s) at 375-390 MB with 50,
	// which was best when every file's buffer was new; pod-2048 in
	// 0.13-0.17 s either way.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	stop, err := startCPUProfile(a.cpuProfile)
	if err != nil {
		return withCode(exitError, err)
	}
	defer stop()
	if a.out == "" {
		return withCode(exitError, errors.New("missing -o DIR: where to write the build (a new directory, or an earlier build's)"))
	}
	if !slices.Contains([]string{"compact", "indented", "none"}, a.openconfig) {
		return withCode(exitError, fmt.Errorf("--openconfig %q: allowed are compact, indented, none", a.openconfig))
	}
	for _, e := range a.emit {
		if e != "model" && e != "host-script" {
			return withCode(exitError, fmt.Errorf("--emit %q: allowed are model, host-script", e))
		}
	}
	if a.only != "" {
		if _, err := path.Match(a.only, ""); err != nil {
			return withCode(exitError, fmt.Errorf("--only %s: %v", diag.Quote(a.only), err))
		}
	}
	// Steps on a terminal's stderr: a 100,000-GPU build takes a while
	// before it renders anything.
	var bar progress = noProgress{}
	if !a.quiet && isTerminal(cmd.ErrOrStderr()) {
		bar = newSteps(cmd.ErrOrStderr())
	}
	defer bar.done()
	bar.step("loading the intent", 0)
	var inspecting *outdir.Background
	f, err := compiler.Load(pathArg(args), compiler.FrontOptions{Only: a.only, Loaded: func(in *schema.Intent) {
		// The output directory is inspected (a rebuild reads and digests
		// every file of the earlier build) while the intent compiles: each
		// takes a core, and neither needs the other. Nothing is written
		// before the intent is known to build.
		cwd, _ := os.Getwd()
		inspecting = outdir.InspectInBackground(a.out, outdir.Options{Guard: []string{in.Dir, cwd}, ReplaceEdited: a.replaceEdited},
			func() (outdir.Manifest, error) { return buildHeader(in, a) })
		bar.step("compiling", 0)
	}})
	if f == nil {
		bar.done()
		return withCode(exitError, err)
	}
	if !f.Parsed {
		bar.done()
		return unreadIntent(cmd, f.Diags)
	}
	in, fab, devs, ds := f.Intent, f.Fabric, f.Devices, f.Diags
	bar.done() // the findings go to stderr too
	summarizeDiags(cmd, ds)
	if fab == nil || ds.HasErrors() {
		inspecting.Wait()
		return withCode(exitFindings, fmt.Errorf("build stopped: %s", diag.Plural(max(ds.Count(diag.Error), 1), "error", "errors")))
	}
	if err != nil {
		inspecting.Wait()
		return withCode(exitError, err)
	}
	bar.step("reading the earlier build in "+a.out, 0)
	out := inspecting.Wait()
	bar.done()
	if out.Err != nil {
		return withCode(exitError, out.Err)
	}
	if out.UpToDate {
		if !a.quiet {
			fmt.Fprintf(cmd.OutOrStdout(), "%s is up to date: %s for %s, nothing written (%s)\n", a.out,
				diag.Plural(len(out.Inspection.Previous().Files), "file", "files"), diag.Plural(len(devs), "device", "devices"),
				time.Since(start).Round(time.Millisecond))
		}
		return nil
	}
	stage, err := out.Inspection.Begin()
	if err != nil {
		return withCode(exitError, err)
	}
	// An interrupt stops the workers; the stage is removed and DIR stays
	// as it was.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bar.step("rendering", len(devs))
	err = renderAll(ctx, stage, fab, devs, ds, in, a, bar)
	if err == nil {
		bar.step("putting the build in place", 0)
		err = stage.Commit(out.Header)
	}
	bar.done()
	if err != nil {
		stage.Abort()
		return withCode(exitError, fmt.Errorf("%w\n  nothing was changed in %s", err, a.out))
	}
	if !a.quiet {
		files, bytes := stage.Written()
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s) for %s to %s in %s\n", diag.Plural(files, "file", "files"),
			humanBytes(int(bytes)), diag.Plural(len(devs), "device", "devices"), a.out, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// buildHeader describes what a build's bytes depend on: the intent's files,
// the program, and the options that change what is written.
func buildHeader(in *schema.Intent, a buildArgs) (outdir.Manifest, error) {
	intent, err := intentDigest(in)
	if err != nil {
		return outdir.Manifest{}, err
	}
	// The program is known by its file (path, size, modification time)
	// rather than its bytes: reading tens of megabytes on every build would
	// cost more than the check saves, and a rebuilt binary has a new mtime.
	exe, err := os.Executable()
	if err != nil {
		// Without the program's identity no rebuild can be known to be the
		// same: leave the key empty, and every build writes.
		return outdir.Manifest{Rocefab: version(), Intent: intent}, nil
	}
	st, err := os.Stat(exe)
	if err != nil {
		return outdir.Manifest{Rocefab: version(), Intent: intent}, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d", exe, st.Size(), st.ModTime().UnixNano())
	// Every option that changes what is written.
	fmt.Fprintf(h, "\x00only=%s\x00emit=%s\x00openconfig=%s", a.only, strings.Join(a.emit, ","), a.openconfig)
	if a.inventory != "" {
		// The addresses gnmic.yaml holds come from it.
		b, err := os.ReadFile(a.inventory)
		if err != nil {
			return outdir.Manifest{}, fmt.Errorf("cannot read inventory: %w", err)
		}
		fmt.Fprintf(h, "\x00inventory=%x", sha256.Sum256(b))
	}
	return outdir.Manifest{Rocefab: version(), Intent: intent, Key: hex.EncodeToString(h.Sum(nil))}, nil
}

// renderAll renders the fabric (renderers.RenderFabric) and writes each
// device's files as soon as they are rendered: a 100,000-GPU fabric's
// artifacts are gigabytes, more than is worth holding in memory. Writing
// is mostly system time, and it overlaps the other workers' rendering.
func renderAll(ctx context.Context, stage *outdir.Stage, fab *ir.Fabric, devs []*ir.Device, ds diag.List, in *schema.Intent, a buildArgs, bar progress) error {
	opt := renderOptions{openconfig: a.openconfig, hostScript: slices.Contains(a.emit, "host-script")}
	if slices.Contains(a.emit, "model") {
		opt.modelDir, _ = filepath.Abs(in.Dir)
	}
	if a.inventory != "" {
		inv, ids, err := schema.LoadInventory(a.inventory)
		if err != nil {
			return err
		}
		if ids.HasErrors() {
			return fmt.Errorf("--inventory %s has %s first", a.inventory, fixFirst(ids.Count(diag.Error)))
		}
		opt.gnmiAddress = gnmiAddress(inv)
	}
	return renderers.RenderFabric(ctx, fab, devs, buildRegistry(opt, ds, in.Dir), renderers.Options{Progress: bar.add}, stageSink{stage})
}

// gnmiAddress returns where gnmic dials each switch: where plan and apply
// reach its gNMI server (routing.GNMIAddress), or the inventory's address
// as it is, to which gnmic adds its own default port, for a switch reached
// otherwise or with no port given.
func gnmiAddress(inv *schema.Inventory) func(name, platform string) string {
	return func(name, platform string) string {
		acc, addr := inv.For(name, platform)
		if acc.Transport == "gnmi" {
			if a, err := routing.GNMIAddress(addr, acc.Port); err == nil {
				return a
			}
		}
		return addr
	}
}

// stageSink writes what is rendered into the build's stage.
type stageSink struct{ stage *outdir.Stage }

func (s stageSink) Device(r renderers.Rendered) error { return writeArtifacts(s.stage, r.Artifacts) }

func (s stageSink) Fabric(arts []renderers.Artifact) error { return writeArtifacts(s.stage, arts) }

// DiscardsContent says that a file's bytes are not kept once written
// (renderers.ContentDiscarder): the renderers reuse them.
func (stageSink) DiscardsContent() {}

// writeArtifacts writes files into the stage; it checks that each path
// stays inside the output directory before opening anything.
func writeArtifacts(stage *outdir.Stage, arts []renderers.Artifact) error {
	for _, f := range arts {
		mode := os.FileMode(0o644)
		if f.Format == renderers.Shell {
			mode = 0o755
		}
		if err := stage.Write(f.Path, f.Content, mode); err != nil {
			return err
		}
	}
	return nil
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// startCPUProfile writes a CPU profile of the rest of the command into
// path, for `go tool pprof`; stop ends it. With no path it does nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
