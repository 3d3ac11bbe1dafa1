package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// TestExitCodes checks each command's exit codes exactly, as INTENT.md
// section 3 gives them (testscript's "! exec" only sees non-zero).
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clean := write("clean.cue", "name: \"lab\"\ntopology: servers: 16\n")
	warn := write("warn.cue", "name: \"lab\"\ntopology: servers: 16\npfc: watchdog: enabled: false\n")
	bad := write("bad.cue", "name: \"lab\"\ntopology: servers: 16\nmtu: host: 2000\n")
	schemaErr := write("schema.cue", "name: \"lab;x\"\ntopology: servers: 16\n")
	syntaxErr := write("syntax.cue", "name: \"lab\"\ntopology: {servers: 16\n")
	jsonErr := write("syntax.json", "{\"name\": \"lab\",\n\"topology\": }\n")
	out := filepath.Join(dir, "out")
	healthy := write("healthy.prom", "node_ethtool_transmitted_prio3_pause{device=\"eth1\",instance=\"gpu-0001:9100\"} 1 0\n"+
		"node_ethtool_transmitted_prio3_pause{device=\"eth1\",instance=\"gpu-0001:9100\"} 31 30000\n")
	flaps := write("flaps.prom", "node_ethtool_link_down_events_phy{device=\"eth1\",instance=\"gpu-0001:9100\"} 1 0\n"+
		"node_ethtool_link_down_events_phy{device=\"eth1\",instance=\"gpu-0001:9100\"} 3 30000\n")
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"lint", clean}, 0},
		{[]string{"lint", warn}, 0},
		{[]string{"lint", "--fail-on", "warning", warn}, 1},
		{[]string{"lint", bad}, 1},
		{[]string{"lint", schemaErr}, 1},
		{[]string{"lint", syntaxErr}, 2},
		{[]string{"lint", "--format", "json", syntaxErr}, 2},
		{[]string{"lint", "--format", "sarif", syntaxErr}, 2},
		{[]string{"lint", jsonErr}, 2},
		{[]string{"lint", filepath.Join(dir, "missing.cue")}, 2},
		{[]string{"lint", "--format", "yaml", clean}, 2},
		{[]string{"lint", "--fail-on", "info", clean}, 2},
		{[]string{"lint", "--explain", "RF102"}, 0},
		{[]string{"lint", "--explain", "RF999"}, 2},
		{[]string{"build", clean, "-o", out}, 0},
		{[]string{"build", clean, "-o", out}, 0}, // an earlier build is replaced
		{[]string{"build", bad, "-o", filepath.Join(dir, "out2")}, 1},
		{[]string{"build", clean}, 2},
		{[]string{"build", syntaxErr, "-o", filepath.Join(dir, "out3")}, 2},
		{[]string{"build", jsonErr, "-o", filepath.Join(dir, "out3")}, 2},
		{[]string{"build", clean, "-o", dir}, 2}, // not an earlier build
		{[]string{"explain", clean, "leaf-r0-00"}, 0},
		{[]string{"explain", clean, "nosuch"}, 2},
		{[]string{"explain", bad, "leaf-r0-00"}, 0}, // explain works on a fabric with findings
		{[]string{"explain", schemaErr, "leaf-r0-00"}, 1},
		{[]string{"explain", syntaxErr, "leaf-r0-00"}, 2},
		{[]string{"explain", clean}, 2}, // missing DEVICE
		{[]string{"explain"}, 2},
		{[]string{"explain", clean, "gpu-0000", "--format", "json"}, 0},
		{[]string{"explain", clean, "gpu-0000", "-o", "json"}, 0}, // -o json: deprecated spelling of --format json
		{[]string{"lint", "-o", "json", clean}, 0},
		{[]string{"explain", clean, "gpu-0000", "-o", "out.json"}, 2}, // -o is where output goes, never a file here
		{[]string{"lint", "-o", "out.json", clean}, 2},
		{[]string{"lint", "--format", "sarif", filepath.Join(dir, "missing.cue")}, 2},
		{[]string{"doctor", clean, "--snapshot", healthy}, 0},
		{[]string{"doctor", clean, "--snapshot", flaps}, 2},
		{[]string{"doctor", clean}, 1},                                           // no snapshot
		{[]string{"doctor", clean, "--snapshot", healthy, "--interval", "x"}, 1}, // a flag error could not run
		{[]string{"doctor", clean, clean, "--snapshot", healthy}, 1},
		{[]string{"doctor", bad, "--snapshot", healthy}, 0}, // findings of lint are not doctor's
		{[]string{"doctor", syntaxErr, "--snapshot", healthy}, 1},
		{[]string{"schema"}, 0},
		{[]string{"version"}, 0},
		{[]string{"--version"}, 0},
		{[]string{"completion", "bash"}, 0},
		{[]string{"completion", "zsh"}, 0},
		{[]string{"completion", "fish"}, 0},
		{[]string{"completion", "powershell"}, 0},
		{[]string{"completion", "nosuchshell"}, 2},
		{[]string{"completion"}, 2},
		{[]string{"nosuchcommand"}, 2},
	} {
		var stdout, stderr bytes.Buffer
		if got := Run(c.args, &stdout, &stderr); got != c.want {
			t.Errorf("rocefab %v: exit %d, want %d\nstdout: %s\nstderr: %s", c.args, got, c.want, stdout.String(), stderr.String())
		}
	}
}

// TestLintSyntaxError: an intent that does not parse could not be read,
// exit 2 as lint's help says, and where it stops parsing is still reported
// on stdout, with its position, as findings are.
func TestLintSyntaxError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fabric.cue")
	if err := os.WriteFile(p, []byte("name: \"lab\"\ntopology: {servers: 16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Run([]string{"lint", p}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stdout.String(), p+":2:") || !strings.Contains(stdout.String(), "error RF001 schema: expected '}'") ||
		!strings.Contains(stderr.String(), "the intent could not be read: 1 error above") {
		t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
}

// TestApplyUnreachableExitCode: an apply none of whose devices can be read
// fails with exit 1 in every format, and its JSON report says failed.
func TestApplyUnreachableExitCode(t *testing.T) {
	withLinesPlatform(t)
	dir, before := lab(t)
	// A device whose running/ entry is a file, not a directory, cannot be
	// read.
	for name := range before {
		p := filepath.Join(dir, "running", name)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range []string{"text", "json"} {
		code, out, errOut := rocefab(t, dir, "", "apply", ".", "--auto-approve", "--format", format)
		if code != exitPlanError {
			t.Errorf("apply --format %s with every device unreachable: exit %d, want 1\n%s%s", format, code, out, errOut)
		}
		if !strings.Contains(errOut, "the plan is incomplete: 7 devices could not be read or diffed") {
			t.Errorf("apply --format %s does not say why it failed:\n%s", format, errOut)
		}
		if format != "json" {
			continue
		}
		var rep struct {
			Failed *bool
			Counts map[string]int
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if rep.Failed == nil || !*rep.Failed || rep.Counts["untouched"] != 7 {
			t.Errorf("JSON report: failed %v, counts %v\n%s", rep.Failed, rep.Counts, out)
		}
	}
}

// An intent that cannot be read is "could not run" (exit 2) with the
// operating system's reason, from lint and build alike; a conflict between
// two files of an intent is a finding (exit 1) that cites both.
func TestLoadErrorsExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		dirtest.Write(t, p, []byte(src), 0o644)
		return p
	}
	intent := "name: \"lab\"\ntopology: servers: 16\n"
	notDir := write("file", "x")
	pkg := filepath.Dir(write("pkg/fabric.cue", intent))
	if err := os.Mkdir(filepath.Join(pkg, "sub.cue"), 0o755); err != nil {
		t.Fatal(err)
	}
	two := filepath.Dir(write("two/a.cue", intent+"mtu: host: 4200\n"))
	write("two/b.cue", "mtu: host: 9000\n")
	cases := []struct {
		path       string
		code       int
		want, stay string
	}{
		{filepath.Join(notDir, "fabric.cue"), 2, "not a directory", ""},
		{pkg, 2, "not a regular file (a directory)", ""},
		{two, 1, "the field is set at a.cue:3:12 and b.cue:1:12", "_|_"},
	}
	if os.Geteuid() != 0 {
		unreadable := write("secret.cue", intent)
		if err := os.Chmod(unreadable, 0); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			path       string
			code       int
			want, stay string
		}{unreadable, 2, "permission denied", "add failed"})
	}
	for _, c := range cases {
		for _, cmd := range [][]string{{"lint", c.path}, {"build", c.path, "-o", filepath.Join(dir, "out")}} {
			var stdout, stderr bytes.Buffer
			got := Run(cmd, &stdout, &stderr)
			text := stdout.String() + stderr.String()
			if got != c.code || !strings.Contains(text, c.want) || (c.stay != "" && strings.Contains(text, c.stay)) {
				t.Errorf("rocefab %v: exit %d, want %d and %q\n%s", cmd, got, c.code, c.want, text)
			}
		}
	}
}
