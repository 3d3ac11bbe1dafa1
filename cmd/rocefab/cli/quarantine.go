package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// releasePlan writes the release plan of the quarantine plan at from to
// out.
func releasePlan(from, out string) error {
	q, err := readQuarantinePlan(from)
	if err != nil {
		return err
	}
	if q == nil || q.Kind != doctor.KindQuarantine {
		return fmt.Errorf("--release %s: allowed is a quarantine plan written by rocefab doctor --out", from)
	}
	intent := filepath.Join(filepath.Dir(from), filepath.FromSlash(q.Intent.Path))
	return writeQuarantine(q.Release(), intent, out)
}

// applyQuarantine carries out a quarantine or release plan: it checks
// the plan against its intent (the same rocefab, the same intent, every
// node a server at the finding's origin or cable), shows it, asks as for
// any plan unless --auto-approve, and runs its scontrol commands one by
// one, stopping at the first that fails.
func applyQuarantine(ctx context.Context, cmd *cobra.Command, a applyArgs, path string, q *doctor.Quarantine, in *bufio.Reader, shown io.Writer) error {
	if a.only != "" {
		return withCode(exitPlanError, errors.New("--only: a quarantine plan drains the servers its findings name; write it again with rocefab doctor"))
	}
	if q.Rocefab != version() {
		return withCode(exitPlanError, fmt.Errorf("%s was written by rocefab %s, this is rocefab %s: write it again with this one", path, q.Rocefab, version()))
	}
	intent := filepath.Join(filepath.Dir(path), filepath.FromSlash(q.Intent.Path))
	ini, fab, err := loadFabric(cmd, intent, exitPlanError)
	if err != nil {
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
	printQuarantine(shown, q)
	// In text the steps go to stdout; with --format json the report
	// does, and the steps to stderr with the plan.
	out, rep := cmd.OutOrStdout(), quarantineReport{Kind: q.Kind, Fabric: q.Fabric, Nodes: q.Nodes(), Ran: [][]string{}}
	if a.format == "json" {
		out = shown
	}
	if len(q.Drains) == 0 {
		fmt.Fprintln(out, "Nothing to apply.")
		return writeQuarantineReport(cmd, a, rep, nil)
	}
	if !a.autoApprove {
		verb := "Drain"
		if q.Kind == doctor.KindRelease {
			verb = "Undrain"
		}
		ok, err := askYes(in, shown, fmt.Sprintf("\n%s %s in Slurm? Only 'yes' is accepted: ", verb, diag.Plural(len(q.Nodes()), "server", "servers")), "")
		if err != nil {
			return withCode(exitPlanError, err)
		}
		if !ok {
			return withCode(exitPlanError, errors.New("apply cancelled: nothing was drained or undrained"))
		}
	}
	scontrol, err := exec.LookPath("scontrol")
	if err != nil {
		return withCode(exitPlanError, fmt.Errorf("apply %s: %w (Slurm's scontrol, Debian package slurm-client, with the cluster's slurm.conf)", path, err))
	}
	for i, d := range q.Drains {
		c := exec.CommandContext(ctx, scontrol, d.Command[1:]...)
		b, err := c.CombinedOutput()
		if err != nil {
			err = fmt.Errorf("apply %s stopped at drain %d of %d: %s: %v: %s; the drains before it were applied",
				path, i+1, len(q.Drains), strings.Join(d.Command, " "), err, strings.TrimSpace(string(b)))
			rep.Failed = err.Error()
			return writeQuarantineReport(cmd, a, rep, err)
		}
		rep.Ran = append(rep.Ran, d.Command)
		fmt.Fprintf(out, "  done  %s\n", shellQuote(d.Command))
	}
	fmt.Fprintf(out, "Apply complete: %s %s\n", diag.Plural(len(q.Nodes()), "server", "servers"), map[string]string{doctor.KindQuarantine: "drained", doctor.KindRelease: "undrained"}[q.Kind])
	return writeQuarantineReport(cmd, a, rep, nil)
}

// quarantineReport is apply's JSON report of a quarantine or release
// plan: the servers it names, the commands that ran, and why it stopped.
type quarantineReport struct {
	Kind   string     `json:"kind"`
	Fabric string     `json:"fabric"`
	Nodes  []string   `json:"nodes"`
	Ran    [][]string `json:"ran"`
	Failed string     `json:"failed,omitempty"`
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
// applied: each finding with the servers and the command.
func printQuarantine(w io.Writer, q *doctor.Quarantine) {
	fmt.Fprintf(w, "%s plan for %s (counters from %s): %s\n", q.Kind, q.Fabric, q.Source, diag.Plural(len(q.Nodes()), "server", "servers"))
	for _, d := range q.Drains {
		fmt.Fprintf(w, "  %s %s at %s: %s\n", d.Kind, d.Cause, d.Origin, strings.Join(d.Nodes, ", "))
		fmt.Fprintf(w, "    %s\n", shellQuote(d.Command))
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
