package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

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
  DIR/<server>/host.sh           idempotent NIC, ECN/DCQCN and tc script, and rocefab-qos.service
  DIR/tenants/<name>.env         the tenant's NCCL environment

Output is byte-for-byte deterministic. DIR is replaced when it holds an earlier build; a DIR with
other files is refused.

Exit codes:
  0  built (warnings, if any, are printed to stderr)
  1  findings that block the build (errors); nothing is written
  2  the intent could not be read, or the output could not be written`

type buildArgs struct {
	out   string
	only  string
	emit  []string
	quiet bool
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
	cmd.Flags().StringVarP(&a.out, "output", "o", "", "output directory (required)")
	cmd.Flags().StringVar(&a.only, "only", "", "render only devices whose name matches this glob (e.g. 'leaf-*')")
	cmd.Flags().StringSliceVar(&a.emit, "emit", nil, "extra outputs: model (each device's compiled model as <device>/model.json)")
	cmd.Flags().BoolVarP(&a.quiet, "quiet", "q", false, "print nothing but findings")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func runBuild(cmd *cobra.Command, a buildArgs, args []string) error {
	start := time.Now()
	// Rendering makes short-lived garbage by the gigabyte on a large fabric
	// and keeps little alive. A somewhat less eager collector saves CPU;
	// much less eager (400) grew the heap enough that page faults cost more
	// than the collections saved (measured on the 100,000-GPU example).
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	for _, e := range a.emit {
		if e != "model" {
			return withCode(exitError, fmt.Errorf("--emit %q: allowed is model", e))
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
	if err := prepareDir(a.out); err != nil {
		return withCode(exitError, err)
	}
	var bar progress = noProgress{}
	if !a.quiet && isTerminal(cmd.ErrOrStderr()) {
		bar = newBar(cmd.ErrOrStderr(), len(fab.Devices))
	}
	st, err := renderAll(fab, ds, in, a, bar)
	bar.done()
	if err != nil {
		return withCode(exitError, err)
	}
	if !a.quiet {
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %d files (%s) for %d devices to %s in %s\n", st.files, humanBytes(int(st.bytes)),
			len(fab.Devices), a.out, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// written counts what a build wrote.
type written struct {
	files int
	bytes int64
}

// renderAll renders every device's artifacts and writes them as it goes,
// spreading devices over all cores: a 100,000-GPU fabric's artifacts are
// gigabytes, more than is worth holding in memory. Each file's bytes depend
// only on its device, so the order workers finish in changes nothing.
func renderAll(fab *ir.Fabric, ds diag.List, in *schema.Intent, a buildArgs, bar progress) (written, error) {
	var devs []*ir.Device
	for _, d := range fab.Devices {
		if ok, _ := path.Match(a.only, d.Name); a.only == "" || ok {
			devs = append(devs, d)
		}
	}
	modelDir := ""
	if slices.Contains(a.emit, "model") {
		modelDir, _ = filepath.Abs(in.Dir)
	}
	// Each worker renders a device and writes its files: writing is mostly
	// system time, and it overlaps the other worker's rendering.
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, len(devs))
	var total written
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Go(func() {
			var mine written
			for i := range next {
				arts, err := renderDevice(devs[i], modelDir)
				if err == nil {
					err = writeArtifacts(a.out, arts, &mine)
				}
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", devs[i].Name, err)
				}
				bar.add()
			}
			mu.Lock()
			total.files += mine.files
			total.bytes += mine.bytes
			mu.Unlock()
		})
	}
	for i := range devs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return total, err
	}
	rest, err := renderFabricWide(fab)
	if err != nil {
		return total, err
	}
	inv, err := inventoryJSON(fab)
	if err != nil {
		return total, err
	}
	rest = append(rest, renderers.Artifact{Path: "inventory.json", Format: renderers.JSON, Content: inv},
		renderers.Artifact{Path: "SUMMARY.md", Format: renderers.Text, Content: summary(fab, ds, in)})
	return total, writeArtifacts(a.out, rest, &total)
}

// writeArtifacts writes files below dir, creating their directories.
func writeArtifacts(dir string, arts []renderers.Artifact, w *written) error {
	made := map[string]bool{}
	for _, f := range arts {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if d := filepath.Dir(p); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
		mode := os.FileMode(0o644)
		if f.Format == renderers.Shell {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.Content, mode); err != nil {
			return err
		}
		w.files++
		w.bytes += int64(len(f.Content))
	}
	return nil
}

// renderDevice runs every renderer that applies to one device. modelDir,
// when not empty, asks for the device's model as model.json too, with
// positions relative to that directory (the intent's) so that the file is
// the same on every machine.
func renderDevice(d *ir.Device, modelDir string) ([]renderers.Artifact, error) {
	var out []renderers.Artifact
	for _, r := range renderersFor(d) {
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

// prepareDir empties dir for a build. It refuses a non-empty directory
// that is not an earlier build, so that -o . cannot wipe a project.
func prepareDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return os.MkdirAll(dir, 0o755)
	}
	if !st.IsDir() {
		return fmt.Errorf("output %s exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "inventory.json")); err != nil {
		return fmt.Errorf("output %s is not empty and holds no earlier build (no inventory.json): choose another directory", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
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
