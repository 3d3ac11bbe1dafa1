package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	rhost "github.com/rocefab/rocefab/renderers/host"
)

// fakeServer is a server for the unit tests: files by path, and a runtime
// whose settings are "path=value" lines (after the SETTINGS_FOR_RUNTIME
// line) and whose state is a map of the same paths. It runs the target's
// scripts by their names ($0) and the runtime by its path, as the real
// ones behave: the scripts' statuses, the runtime's --check --json report
// and its ERROR lines. The real scripts and runtime run in the tests with
// sshd and tc.
type fakeServer struct {
	mu      sync.Mutex
	name    string
	prefix  []string
	files   map[string][]byte
	modes   map[string]string
	state   map[string]string
	digest  string // RUNTIME_DIGEST of the installed runtime
	cmds    [][]string
	failKey string // the runtime's real run dies writing this setting
	hang    bool   // every command waits for its context
	down    bool   // the server cannot be reached
	dieRead string // --check dies with this message (no report)
	readErr string // --check --json reports this error (status 2)
}

func newFake(name string) *fakeServer {
	return &fakeServer{name: name, files: map[string][]byte{}, modes: map[string]string{}, state: map[string]string{}}
}

const (
	testRuntimePath  = "/usr/local/lib/rocefab/rocefab-host.sh"
	testSettingsPath = "/etc/rocefab/host.conf"
	testStateFile    = rhost.StateFile
)

// runtimeOf is a runtime file for the fake: only its digest line counts.
func runtimeOf(digest string) []byte {
	return []byte("#!/usr/bin/env bash\nset -euo pipefail\nreadonly RUNTIME_DIGEST='" + digest + "'\n# body\n")
}

var (
	digestA = strings.Repeat("a", 64)
	digestB = strings.Repeat("b", 64)
)

// settingsOf is host.conf for the fake runtime.
func settingsOf(digest string, kv ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "readonly SETTINGS_FOR_RUNTIME='%s'\n", digest)
	for _, s := range kv {
		b.WriteString(s + "\n")
	}
	return b.String()
}

func (f *fakeServer) connect(ctx context.Context, d *ir.Device) (Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, errors.New("cannot connect to 192.0.2.1:22: connection refused")
	}
	return fakeConn{f}, nil
}

type fakeConn struct{ f *fakeServer }

func (c fakeConn) Close() error { return nil }

func (c fakeConn) Run(ctx context.Context, argv []string, stdin []byte) (Result, error) {
	f := c.f
	f.mu.Lock()
	f.cmds = append(f.cmds, slices.Clone(argv))
	hang := f.hang
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return Result{}, fmt.Errorf("%s: %w (it may still finish on the server)", argv[0], ctx.Err())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.Equal(argv[:min(len(f.prefix), len(argv))], f.prefix) {
		return Result{Status: 127, Stderr: []byte("prefix missing\n")}, nil
	}
	argv = argv[len(f.prefix):]
	if len(argv) >= 4 && argv[0] == "sh" && argv[1] == "-c" {
		return f.script(argv[3], argv[4:], stdin), nil
	}
	if len(argv) > 0 && argv[0] == testRuntimePath {
		return f.runtime(argv[1:]), nil
	}
	return Result{Status: 127, Stderr: []byte(argv[0] + ": not found\n")}, nil
}

func (f *fakeServer) script(name string, args []string, stdin []byte) Result {
	switch name {
	case "rocefab-read":
		if _, ok := f.files[args[0]]; !ok {
			return Result{Status: 3, Stderr: []byte("rocefab: no runtime at " + args[0] + "\n")}
		}
		if _, ok := f.files[args[1]]; !ok {
			return Result{Status: 4, Stderr: []byte("rocefab: no settings at " + args[1] + "\n")}
		}
		return f.runtime([]string{"--check", "--json", "--settings", args[1]})
	case "rocefab-before":
		var out []byte
		if b, ok := f.files[args[0]]; ok {
			out = fmt.Appendf(out, "settings %d\n%s", len(b), b)
		} else {
			out = append(out, "settings absent\n"...)
		}
		if b, ok := f.files[args[1]]; !ok {
			out = append(out, "runtime absent\n"...)
		} else if sha256Hex(b) == args[2] {
			out = append(out, "runtime same\n"...)
		} else {
			out = fmt.Appendf(out, "runtime %d\n%s", len(b), b)
		}
		return Result{Stdout: out}
	case "rocefab-install":
		f.files[args[0]] = slices.Clone(stdin)
		f.modes[args[0]] = args[1]
		if args[0] == testRuntimePath {
			f.digest = ""
			if m := digestLine.FindSubmatch(stdin); m != nil {
				f.digest = string(m[1])
			}
		}
		return Result{}
	}
	return Result{Status: 127, Stderr: []byte(name + ": unknown script\n")}
}

// runtime emulates rocefab-host.sh [--check [--json]] --settings F [--only S].
func (f *fakeServer) runtime(args []string) Result {
	var check, js bool
	var settings, only string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--check":
			check = true
		case "--json":
			js = true
		case "--settings":
			i++
			settings = args[i]
		case "--only":
			i++
			only = args[i]
		}
	}
	die := func(msg string) Result {
		return Result{Status: 2, Stderr: []byte("rocefab-host.sh: " + msg + "\n")}
	}
	conf, ok := f.files[settings]
	if !ok {
		return die("cannot read the settings " + settings)
	}
	lines := strings.Split(strings.TrimSpace(string(conf)), "\n")
	if lines[0] != "readonly SETTINGS_FOR_RUNTIME='"+f.digest+"'" {
		return die("the settings were written for another runtime")
	}
	if check && f.dieRead != "" {
		return die(f.dieRead)
	}
	type setting struct {
		Path string `json:"path"`
		Have string `json:"have"`
		Want string `json:"want"`
	}
	var report []setting
	var out, errs strings.Builder
	drift := 0
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, "=")
		sec := strings.Split(k, "/")[1]
		if only != "" && !slices.Contains(strings.Split(only, ","), sec) {
			continue
		}
		report = append(report, setting{k, f.state[k], v})
		if f.state[k] == v {
			continue
		}
		if check {
			fmt.Fprintf(&out, "DRIFT %s: have %s, want %s\n", k, f.state[k], v)
			drift++
			continue
		}
		if k == f.failKey {
			return die("failed: cannot write " + v + " to " + k)
		}
		fmt.Fprintf(&out, "CHANGE %s: %s -> %s\n", k, f.state[k], v)
		f.state[k] = v
	}
	if js {
		doc := map[string]any{"device": f.name, "runtime": f.digest, "tool": "dcb", "settings": report,
			"unmanaged": []any{}, "notes": []any{}, "errors": []string{}}
		status := min(drift, 1)
		if f.readErr != "" {
			doc["errors"] = []string{f.readErr}
			fmt.Fprintf(&errs, "ERROR %s\n", f.readErr)
			status = 2
		}
		b, _ := json.MarshalIndent(doc, "", "  ")
		return Result{Stdout: append(b, '\n'), Stderr: []byte(errs.String() + out.String()), Status: status}
	}
	if check && drift > 0 {
		return Result{Stdout: []byte(out.String()), Status: 1}
	}
	return Result{Stdout: []byte(out.String())}
}

// installed puts a runtime and settings on the fake as a build installed
// them, with the server in sync with them.
func (f *fakeServer) installed(digest string, kv ...string) {
	f.files[testRuntimePath] = runtimeOf(digest)
	f.digest = digest
	f.files[testSettingsPath] = []byte(settingsOf(digest, kv...))
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		f.state[k] = v
	}
}

// remediation is a host remediation as renderers/host writes it.
func remediation(device, digest, conf string, sections ...string) renderers.Remediation {
	r := map[string]any{"device": device, "runtime": digest,
		"install":  map[string]string{"path": testSettingsPath, "sha256": sha256Hex([]byte(conf)), "content": conf},
		"sections": sections, "run": []string{testRuntimePath}, "writes": []any{}}
	b, _ := json.Marshal(r)
	return renderers.Remediation{Format: renderers.JSON, Content: b}
}

func (f *fakeServer) ran() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.cmds)
}
