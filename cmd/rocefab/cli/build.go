package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/cmd/rocefab/outdir"
	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/schema"
)

const buildDoc = `Compile an intent and write every artifact into DIR:

  DIR/inventory.json             the expanded fabric (devices and links), readable back as an explicit topology
  DIR/SUMMARY.md                 devices by role and platform, classes, derived thresholds, findings
  DIR/<switch>/<platform file>   eos.cfg, nvue.yaml, config_db.json or nxos.cfg, plus openconfig.json
                                 (compact, the gNMI payload; --openconfig indented to read it)
  DIR/<server>/host.conf         the server's NIC, ECN/DCQCN and tc settings, as data for the host runtime
  DIR/hosts/                     the host runtime (rocefab-host.sh: idempotent, --check reports drift) and
                                 its systemd unit rocefab-qos@.service, once for every server
  DIR/<server>/host.sh           with --emit host-script: the settings and the runtime in one script
  DIR/tenants/<name>.env         the tenant's NCCL environment
  DIR/slurm/, DIR/k8s/           the fabric's topology for schedulers: Slurm topology files, node labels, a Kueue Topology

Output is byte-for-byte deterministic. The build is written into a new directory beside DIR and
put in DIR's place only when every file is written, so a failed or interrupted build leaves the
earlier one as it was. DIR/.rocefab-manifest.json lists every file a build wrote with its digest;
a later build replaces only those. A DIR holding anything else is refused and nothing is deleted;
so are files rocefab wrote and someone edited since (unless --replace-edited). DIR may not be, or
contain, the intent's directory or the working directory. A rebuild of an unchanged intent by the
same rocefab finds DIR up to date and writes nothing.

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
	cmd.Flags().BoolVar(&a.replaceEdited, "replace-edited", false, "replace files an earlier build wrote even when they were edited since (never files it did not write)")
	return cmd
}

func runBuild(cmd *cobra.Command, a buildArgs, args []string) error {
	start := time.Now()
	// Rendering makes short-lived garbage by the gigabyte on a large fabric
	// and keeps little alive. A somewhat less eager collector saves CPU;
	// much less eager (400) grew the heap enough that page faults cost more
	// than the collections saved (measured on the 100,000-GPU example).
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	if a.cpuProfile != "" {
		f, err := os.Create(a.cpuProfile)
		if err != nil {
			return withCode(exitError, fmt.Errorf("--cpuprofile: %w", err))
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return withCode(exitError, fmt.Errorf("--cpuprofile: %w", err))
		}
		defer pprof.StopCPUProfile()
	}
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
			return withCode(exitError, fmt.Errorf("--only %q: %v", a.only, err))
		}
	}
	in, ds, err := schema.Load(pathArg(args))
	if err != nil {
		return withCode(exitError, err)
	}
	var fab *ir.Fabric
	if in != nil {
		fab, ds = compiler.Compile(in)
	}
	summarizeDiags(cmd, ds)
	if fab == nil || ds.HasErrors() {
		return withCode(exitFindings, fmt.Errorf("build stopped: %d errors", max(ds.Count(diag.Error), 1)))
	}
	devs, err := selectDevices(fab, a.only)
	if err != nil {
		return withCode(exitError, err)
	}
	header, err := buildHeader(in, a)
	if err != nil {
		return withCode(exitError, err)
	}
	cwd, _ := os.Getwd()
	stage, err := outdir.Begin(a.out, outdir.Options{Guard: []string{in.Dir, cwd}, ReplaceEdited: a.replaceEdited})
	if err != nil {
		return withCode(exitError, err)
	}
	if stage.UpToDate(header) {
		stage.Abort()
		if !a.quiet {
			fmt.Fprintf(cmd.OutOrStdout(), "%s is up to date: %d files for %d devices, nothing written (%s)\n", a.out,
				len(stage.Previous().Files), len(devs), time.Since(start).Round(time.Millisecond))
		}
		return nil
	}
	// An interrupt stops the workers; the stage is removed and DIR stays
	// as it was.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var bar progress = noProgress{}
	if !a.quiet && isTerminal(cmd.ErrOrStderr()) {
		bar = newBar(cmd.ErrOrStderr(), len(devs))
	}
	err = renderAll(ctx, stage, fab, devs, ds, in, a, bar)
	bar.done()
	if err == nil {
		err = stage.Commit(header)
	}
	if err != nil {
		stage.Abort()
		return withCode(exitError, fmt.Errorf("%w\n  nothing was changed in %s", err, a.out))
	}
	if !a.quiet {
		files, bytes := stage.Written()
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %d files (%s) for %d devices to %s in %s\n", files, humanBytes(int(bytes)),
			len(devs), a.out, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// selectDevices returns the devices --only names (all without it). A
// pattern that names none is an error with the closest names, since an
// empty build is never what was meant.
func selectDevices(fab *ir.Fabric, only string) ([]*ir.Device, error) {
	if only == "" {
		return fab.Devices, nil
	}
	var devs []*ir.Device
	for _, d := range fab.Devices {
		if ok, _ := path.Match(only, d.Name); ok {
			devs = append(devs, d)
		}
	}
	if len(devs) > 0 {
		return devs, nil
	}
	names := make([]string, len(fab.Devices))
	for i, d := range fab.Devices {
		names[i] = d.Name
	}
	return nil, fmt.Errorf("--only %q matches no device; closest: %s", only, strings.Join(closest(only, names, 3), ", "))
}

// buildHeader describes what a build's bytes depend on: the intent's files,
// the program, and the options that change what is written.
func buildHeader(in *schema.Intent, a buildArgs) (outdir.Manifest, error) {
	files := slices.Clone(in.Files)
	if inv := in.Fabric.Topology.Inventory; inv != "" {
		if !filepath.IsAbs(inv) {
			inv = filepath.Join(in.Dir, inv)
		}
		files = append(files, inv)
	}
	intent, err := outdir.DigestFiles(in.Dir, files)
	if err != nil {
		return outdir.Manifest{}, fmt.Errorf("cannot read intent: %w", err)
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
	return outdir.Manifest{Rocefab: version(), Intent: intent, Key: hex.EncodeToString(h.Sum(nil))}, nil
}

// renderAll renders every device's artifacts and writes them as it goes,
// spreading devices over all cores: a 100,000-GPU fabric's artifacts are
// gigabytes, more than is worth holding in memory. Each file's bytes depend
// only on its device, so the order workers finish in changes nothing.
func renderAll(ctx context.Context, stage *outdir.Stage, fab *ir.Fabric, devs []*ir.Device, ds diag.List, in *schema.Intent, a buildArgs, bar progress) error {
	opt := renderOptions{openconfig: a.openconfig, hostScript: slices.Contains(a.emit, "host-script")}
	if slices.Contains(a.emit, "model") {
		opt.modelDir, _ = filepath.Abs(in.Dir)
	}
	// Each worker renders a device and writes its files: writing is mostly
	// system time, and it overlaps the other worker's rendering.
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Go(func() {
			for i := range next {
				arts, err := renderDevice(devs[i], opt)
				if err == nil {
					err = writeArtifacts(stage, arts)
				}
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", devs[i].Name, err)
				}
				bar.add()
			}
		})
	}
feed:
	for i := range devs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	wide, err := renderFabricWide(fab)
	if err != nil {
		return err
	}
	inv, err := inventoryJSON(fab)
	if err != nil {
		return err
	}
	rest := append(wide, renderers.Artifact{Path: "inventory.json", Format: renderers.JSON, Content: inv},
		renderers.Artifact{Path: "SUMMARY.md", Format: renderers.Text, Content: summary(fab, ds, in, opt, wide)})
	return writeArtifacts(stage, rest)
}

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

// renderOptions are the build's choices about what a device's artifacts
// are; the zero value is every artifact in its default form.
type renderOptions struct {
	// modelDir, when not empty, asks for the device's model as model.json
	// too, with positions relative to that directory (the intent's) so
	// that the file is the same on every machine.
	modelDir string
	// openconfig is how openconfig.json is written: "compact" (also for
	// ""), "indented" or "none".
	openconfig string
	// hostScript asks for each server's single-file host.sh too.
	hostScript bool
}

// renderDevice runs every renderer that applies to one device.
func renderDevice(d *ir.Device, opt renderOptions) ([]renderers.Artifact, error) {
	modelDir := opt.modelDir
	var out []renderers.Artifact
	for _, r := range append(renderersFor(d, opt.openconfig), emitRenderers(d, opt.hostScript)...) {
		arts, err := r.Render(d)
		if err != nil {
			return nil, err
		}
		out = append(out, arts...)
	}
	if modelDir != "" {
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return nil, err
		}
		prefix, _ := json.Marshal(filepath.ToSlash(modelDir) + "/")
		b = bytes.ReplaceAll(b, append([]byte(`"file": `), prefix[:len(prefix)-1]...), []byte(`"file": "`))
		out = append(out, renderers.Artifact{Path: d.Name + "/model.json", Format: renderers.JSON, Content: append(b, '\n')})
	}
	return out, nil
}

// inventoryJSON writes the expanded fabric in the format the explicit
// topology reads back.
func inventoryJSON(fab *ir.Fabric) ([]byte, error) {
	l := schema.DeviceList{Devices: make([]schema.ListedDevice, 0, len(fab.Devices)), Links: make([]schema.ListedLink, 0, len(fab.Links))}
	for _, d := range fab.Devices {
		ld := schema.ListedDevice{Name: d.Name, Role: string(d.Role), Platform: d.Platform, Model: d.Model}
		if d.Rail >= 0 {
			ld.Rail = new(d.Rail)
		}
		if d.Pod >= 0 {
			ld.Pod = new(d.Pod)
		}
		l.Devices = append(l.Devices, ld)
	}
	for _, k := range fab.Links {
		l.Links = append(l.Links, schema.ListedLink{A: k.A.String(), B: k.B.String(),
			Speed: schema.FormatSpeed(k.SpeedGbps), Cable: schema.FormatLength(k.CableM)})
	}
	// One element per line keeps the file diffable and fast to read back.
	var b bytes.Buffer
	b.WriteString("{\"devices\": [\n")
	for i, d := range l.Devices {
		line, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		b.WriteString("  ")
		b.Write(line)
		if i < len(l.Devices)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("],\n\"links\": [\n")
	for i, k := range l.Links {
		line, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.WriteString("  ")
		b.Write(line)
		if i < len(l.Links)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes(), nil
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
