package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
)

const explainDoc = `Show every value rocefab derived for a device (or one of its ports): headroom, xoff and xon per
port class, the buffer plan, the PFC xoff point and the DCQCN fluid model's predicted utilisation and
queue for each lossless class's ECN profile at the fabric's round trip for switches; the NIC's
headroom and the RoCE ToS for servers. Each value comes with its formula, the inputs that fed it and
the intent field it came from. FIELD keeps only the values whose name contains it (e.g. headroom,
xoff, xon, size, xoff-point, ecn, reserved, nic-headroom).

--format json prints [{device, port, field, value, unit, bytes, formula, inputs, from, source,
intent}] to stdout. Findings of an intent that does not compile go to stderr.

Exit codes:
  0  explained
  1  the intent does not compile (its findings are printed)
  2  the intent could not be read, DEVICE is missing or unknown, or FIELD matches nothing`

type explainArgs struct {
	format string
}

// explained is one derived value as explain prints it.
type explained struct {
	Device  string            `json:"device"`
	Port    string            `json:"port,omitempty"`
	Field   string            `json:"field"`
	Value   int64             `json:"value"`
	Unit    string            `json:"unit"`
	Bytes   *int64            `json:"bytes,omitempty"`
	Formula string            `json:"formula"`
	Inputs  map[string]string `json:"inputs"`
	// From maps an input to the intent field it came from.
	From   map[string]string `json:"from,omitempty"`
	Order  []string          `json:"-"`
	Source string            `json:"source"`
	Intent string            `json:"intent,omitempty"`
}

func newExplainCmd() *cobra.Command {
	a := explainArgs{}
	cmd := &cobra.Command{
		Use:     "explain [PATH] DEVICE[:PORT] [FIELD]",
		Short:   "Show each derived value with its formula, inputs and source",
		Long:    explainDoc,
		Example: "  rocefab explain examples/pod-2048 leaf-r0-00:Ethernet17/1 headroom\n  rocefab explain examples/pod-2048 gpu-0000 --format json",
		Args:    explainArgsCheck,
		RunE:    func(cmd *cobra.Command, args []string) error { return runExplain(cmd, a, args) },
	}
	cmd.Flags().StringVar(&a.format, "format", "text", "output format: text or json")
	formatAlias(cmd, cmd.Flags().Lookup("format").Value)
	return cmd
}

// explainArgsCheck says which argument is missing: a lone PATH (an
// existing file or directory, or a name ending in .cue or .json) is an
// intent without the DEVICE to explain.
func explainArgsCheck(_ *cobra.Command, args []string) error {
	const usage = "usage: rocefab explain [PATH] DEVICE[:PORT] [FIELD]"
	switch {
	case len(args) == 0:
		return withCode(exitError, fmt.Errorf("missing DEVICE: %s", usage))
	case len(args) == 1 && isPath(args[0]):
		return withCode(exitError, fmt.Errorf("missing DEVICE after the intent %s: %s", args[0], usage))
	case len(args) > 3:
		return withCode(exitError, fmt.Errorf("%d arguments: %s", len(args), usage))
	}
	return nil
}

func runExplain(cmd *cobra.Command, a explainArgs, args []string) error {
	if a.format != "text" && a.format != "json" {
		return withCode(exitError, fmt.Errorf("--format %q: allowed are text, json", a.format))
	}
	// PATH is optional: DEVICE is the argument with the device in it. With
	// three arguments the first is the path; with two, the first is a path
	// when it exists as one.
	path, target, field := ".", "", ""
	switch len(args) {
	case 1:
		target = args[0]
	case 2:
		if isPath(args[0]) {
			path, target = args[0], args[1]
		} else {
			target, field = args[0], args[1]
		}
	case 3:
		path, target, field = args[0], args[1], args[2]
	}
	f, err := compiler.Load(path, compiler.FrontOptions{Expand: true})
	if f == nil {
		return withCode(exitError, err)
	}
	if !f.Parsed {
		return unreadIntent(cmd, f.Diags)
	}
	fab, ds := f.Fabric, f.Diags
	if fab == nil {
		summarizeDiags(cmd, ds)
		return withCode(exitFindings, fmt.Errorf("the intent does not compile"))
	}
	vals, err := explainTarget(fab, target, field)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := printExplained(cmd.OutOrStdout(), a.format, vals); err != nil {
		return withCode(exitError, err)
	}
	return nil
}

// explainTarget returns the values explain prints for target, DEVICE or
// DEVICE:PORT of fab: the device's derivations, a server's place in the
// fabric and the NCCL traffic class of each tenant on it; with field,
// only those whose name contains it.
func explainTarget(fab *ir.Fabric, target, field string) ([]explained, error) {
	name, port, _ := strings.Cut(target, ":")
	d := fab.Device(name)
	if d == nil {
		return nil, fmt.Errorf("no device %s in %s (devices are named like %s)", diag.Quote(name), fab.Name, fab.Devices[0].Name)
	}
	vals, err := explainDevice(d, port)
	if err != nil {
		return nil, err
	}
	vals = append(vals, explainPosition(fab, d)...)
	if d.Host != nil && port == "" {
		// The NCCL traffic class of every tenant that runs on the server.
		for _, t := range fab.Tenants {
			if len(t.Servers) == 0 || slices.Contains(t.Servers, d.Name) {
				vals = append(vals, explainDerivations(d.Name, "", t.Derived, t.Pos)...)
			}
		}
	}
	if field == "" {
		return vals, nil
	}
	var keep []explained
	for _, v := range vals {
		if strings.Contains(v.Field, field) {
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		var names []string
		for _, v := range vals {
			names = append(names, v.Field)
		}
		return nil, fmt.Errorf("no derived value %s for %s: there are %s", diag.Quote(field), target, strings.Join(names, ", "))
	}
	return keep, nil
}

// printExplained prints vals in format: text, each value with its formula,
// inputs, source and intent field, or json.
func printExplained(out io.Writer, format string, vals []explained) error {
	if format == "json" {
		if vals == nil {
			vals = []explained{}
		}
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(vals)
	}
	for _, v := range vals {
		where := v.Device
		if v.Port != "" {
			where += ":" + v.Port
		}
		fmt.Fprintf(out, "%s %s = %d %s\n  formula: %s\n", where, v.Field, v.Value, v.Unit, v.Formula)
		for _, k := range v.Order {
			if from, ok := v.From[k]; ok {
				fmt.Fprintf(out, "    %s = %s  (%s)\n", k, v.Inputs[k], from)
				continue
			}
			fmt.Fprintf(out, "    %s = %s\n", k, v.Inputs[k])
		}
		if v.Source != "" {
			fmt.Fprintf(out, "  source:  %s\n", v.Source)
		}
		if v.Intent != "" {
			fmt.Fprintf(out, "  intent:  %s\n", v.Intent)
		}
	}
	return nil
}

// relPos prints a position relative to the working directory, as lint
// does, so that the output is the same wherever the intent lives.
func relPos(p diag.Pos) string {
	if cwd, err := os.Getwd(); err == nil && filepath.IsAbs(p.File) {
		if rel, err := filepath.Rel(cwd, p.File); err == nil {
			p.File = filepath.ToSlash(rel)
		}
	}
	return p.String()
}

// isPath tells an intent path from a device name: a path ends in .cue or
// .json, or names something that exists (device names rarely do).
func isPath(s string) bool {
	if strings.HasSuffix(s, ".cue") || strings.HasSuffix(s, ".json") {
		return true
	}
	_, err := os.Stat(s)
	return err == nil
}

// explainDevice collects a device's derivations: for a switch, per port
// class (or the one port asked for) and its buffer plan; for a server, its
// NIC profile.
func explainDevice(d *ir.Device, port string) ([]explained, error) {
	var out []explained
	add := func(p string, ds []ir.Derivation, pos diag.Pos) {
		out = append(out, explainDerivations(d.Name, p, ds, pos)...)
	}
	switch {
	case d.Switch != nil:
		if port != "" {
			pt := d.Switch.Port(port)
			if pt == nil {
				return nil, fmt.Errorf("%s has no port %s (ports are like %s)", d.Name, diag.Quote(port), d.Switch.Ports[0].Name)
			}
			add(pt.Name, pt.Headroom.Derived, pt.Headroom.Pos)
			return out, nil
		}
		for _, h := range d.Switch.Headrooms {
			for _, pt := range d.Switch.Ports {
				if pt.Headroom == h {
					add(pt.Name+" ("+h.Name+")", h.Derived, h.Pos)
					break
				}
			}
		}
		if b := d.Switch.Buffers; b != nil {
			add("", b.Derived, b.Pos)
		}
		add("", d.Switch.Derived, diag.Pos{})
	case d.Host != nil && d.Host.Profile != nil:
		if port != "" {
			found := false
			for _, n := range d.Host.NICs {
				found = found || n.Port == port
			}
			if !found {
				return nil, fmt.Errorf("%s has no RDMA port %s", d.Name, diag.Quote(port))
			}
		}
		add(port, d.Host.Profile.Derived, d.Host.Profile.Pos)
	}
	return out, nil
}

// explainDerivations turns derivations of a device (or one of its ports)
// into what explain prints, with the intent field each came from.
func explainDerivations(device, port string, ds []ir.Derivation, pos diag.Pos) []explained {
	var out []explained
	for _, x := range ds {
		e := explained{Device: device, Port: port, Field: x.Field, Value: x.Value, Unit: x.Unit, Formula: x.Formula,
			Inputs: map[string]string{}, Source: x.Source}
		if pos.IsValid() {
			e.Intent = relPos(pos)
		}
		if x.Unit == "B" {
			e.Bytes = new(x.Value)
		}
		for _, in := range x.Inputs {
			e.Inputs[in.Name] = in.Value
			e.Order = append(e.Order, in.Name)
			if in.Pos.IsValid() {
				if e.From == nil {
					e.From = map[string]string{}
				}
				e.From[in.Name] = relPos(in.Pos)
			}
		}
		out = append(out, e)
	}
	return out
}
