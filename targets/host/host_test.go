package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets"
)

var server = &ir.Device{Name: "gpu-0000", Role: ir.RoleHost, Platform: ir.PlatformLinux}

// newTarget is a target of f, installing the runtime of digest.
func newTarget(t *testing.T, f *fakeServer, digest string) *Target {
	t.Helper()
	tg, err := New(Options{Connect: f.connect, Prefix: f.prefix, Runtime: runtimeOf(digest),
		RuntimePath: testRuntimePath, SettingsPath: testSettingsPath, StateFile: testStateFile, CommandTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestReadNothingInstalled(t *testing.T) {
	f := newFake(server.Name)
	tg := newTarget(t, f, digestA)
	arts, err := tg.Read(context.Background(), server)
	if err != nil || len(arts) != 0 {
		t.Fatalf("a server without the runtime: %v, %v; want no artifacts and no error", arts, err)
	}
	f.files[testRuntimePath] = runtimeOf(digestA)
	arts, err = tg.Read(context.Background(), server)
	if err != nil || len(arts) != 0 {
		t.Fatalf("a server without settings: %v, %v; want no artifacts and no error", arts, err)
	}
}

func TestReadReport(t *testing.T) {
	f := newFake(server.Name)
	f.prefix = []string{"sudo", "-n"}
	f.installed(digestA, "eth0/shaping/qdisc=htb 1: default 0xff", "eth2/mtu=4200")
	f.state["eth2/mtu"] = "1500"
	tg := newTarget(t, f, digestA)
	arts, err := tg.Read(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].Path != "gpu-0000/host-state.json" {
		t.Fatalf("artifacts %+v, want gpu-0000/host-state.json", arts)
	}
	for _, want := range []string{`"device": "gpu-0000"`, `"path": "eth2/mtu"`, `"have": "1500"`, `"want": "4200"`} {
		if !strings.Contains(string(arts[0].Content), want) {
			t.Errorf("report lacks %s:\n%s", want, arts[0].Content)
		}
	}
	for _, c := range f.ran() {
		if !slices.Equal(c[:2], []string{"sudo", "-n"}) {
			t.Errorf("command %q runs without the prefix", c)
		}
	}

	// A report with errors is the platform's to refuse; a runtime that
	// dies before reporting is an error with its message.
	f.readErr = "eth2: mlnx_qos -i eth2 failed"
	arts, err = tg.Read(context.Background(), server)
	if err != nil || len(arts) != 1 || !strings.Contains(string(arts[0].Content), "mlnx_qos -i eth2 failed") {
		t.Errorf("a report with errors: %v %v", arts, err)
	}
	f.readErr, f.dieRead = "", "needs bash 4.4 or later"
	_, err = tg.Read(context.Background(), server)
	if err == nil || !strings.Contains(err.Error(), "rocefab-host.sh: needs bash 4.4 or later") || !strings.Contains(err.Error(), "gpu-0000") {
		t.Errorf("a runtime that dies: %v", err)
	}
}

func TestReadUnreachableAndTimeout(t *testing.T) {
	f := newFake(server.Name)
	f.down = true
	tg := newTarget(t, f, digestA)
	if _, err := tg.Read(context.Background(), server); err == nil || !strings.Contains(err.Error(), "gpu-0000: cannot connect") {
		t.Errorf("an unreachable server: %v", err)
	}
	f.down, f.hang = false, true
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := tg.Read(ctx, server)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Errorf("a server that does not answer: %v after %v", err, time.Since(start))
	}
	// The target's own bound applies without a deadline of the caller.
	tg.opts.CommandTimeout = 30 * time.Millisecond
	if _, err := tg.Read(context.Background(), server); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a command beyond CommandTimeout: %v", err)
	}
}

func TestPushInstallsAndRuns(t *testing.T) {
	f := newFake(server.Name)
	tg := newTarget(t, f, digestA)
	conf := settingsOf(digestA, "eth0/shaping/qdisc=htb 1: default 0xff", "eth2/mtu=4200")
	if err := tg.Push(context.Background(), server, remediation(server.Name, digestA, conf, "shaping")); err != nil {
		t.Fatal(err)
	}
	if string(f.files[testSettingsPath]) != conf || f.modes[testSettingsPath] != "0644" {
		t.Errorf("settings %q mode %s", f.files[testSettingsPath], f.modes[testSettingsPath])
	}
	if string(f.files[testRuntimePath]) != string(runtimeOf(digestA)) || f.modes[testRuntimePath] != "0755" {
		t.Errorf("runtime not installed: %q mode %s", f.files[testRuntimePath], f.modes[testRuntimePath])
	}
	if f.state["eth0/shaping/qdisc"] != "htb 1: default 0xff" || f.state["eth2/mtu"] != "" {
		t.Errorf("the run did not take only the shaping section: %v", f.state)
	}
	var runs [][]string
	for _, c := range f.ran() {
		if c[0] == testRuntimePath {
			runs = append(runs, c)
		}
	}
	want := [][]string{
		{testRuntimePath, "--settings", testSettingsPath, "--only", "shaping"},
		{testRuntimePath, "--check", "--settings", testSettingsPath, "--only", "shaping"},
	}
	if !slices.EqualFunc(runs, want, slices.Equal) {
		t.Errorf("runtime runs %q, want %q", runs, want)
	}

	// The runtime of this build is not installed again.
	f.cmds = nil
	conf2 := settingsOf(digestA, "eth0/shaping/qdisc=htb 1: default 0xff", "eth2/mtu=4200")
	if err := tg.Push(context.Background(), server, remediation(server.Name, digestA, conf2, "mtu")); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.ran() {
		if slices.Contains(c, "rocefab-install") && slices.Contains(c, testRuntimePath) {
			t.Errorf("the runtime was installed again: %q", c)
		}
	}
	if f.state["eth2/mtu"] != "4200" {
		t.Errorf("mtu not set: %v", f.state)
	}
}

func TestPushFailureRestores(t *testing.T) {
	f := newFake(server.Name)
	f.installed(digestB, "eth2/mtu=1500", "eth0/shaping/qdisc=none")
	oldConf, oldRuntime := string(f.files[testSettingsPath]), string(f.files[testRuntimePath])
	tg := newTarget(t, f, digestA)
	f.failKey = "eth2/mtu"
	conf := settingsOf(digestA, "eth0/shaping/qdisc=htb 1: default 0xff", "eth2/mtu=4200")
	err := tg.Push(context.Background(), server, remediation(server.Name, digestA, conf, "mtu", "shaping"))
	if err == nil || !strings.Contains(err.Error(), "rocefab-host.sh: failed: cannot write 4200 to eth2/mtu") ||
		!strings.Contains(err.Error(), "previous settings were installed and run again") {
		t.Fatalf("a failing run: %v", err)
	}
	if string(f.files[testSettingsPath]) != oldConf || string(f.files[testRuntimePath]) != oldRuntime || f.digest != digestB {
		t.Errorf("the previous settings and runtime are not back")
	}
	if f.state["eth0/shaping/qdisc"] != "none" || f.state["eth2/mtu"] != "1500" {
		t.Errorf("state after the failed push %v, want the previous one", f.state)
	}
}

func TestPushDriftStaysAfterTheRun(t *testing.T) {
	// A runtime that runs cleanly but whose check still differs (a NIC
	// that ignores a value) fails the push.
	f := newFake(server.Name)
	f.installed(digestA, "eth2/mtu=1500")
	tg := newTarget(t, f, digestA)
	conf := settingsOf(digestA, "eth2/mtu=4200", "eth2/mtu=9000")
	err := tg.Push(context.Background(), server, remediation(server.Name, digestA, conf, "mtu"))
	if err == nil || !strings.Contains(err.Error(), "still finds differences") || !strings.Contains(err.Error(), "DRIFT eth2/mtu") {
		t.Fatalf("a run that does not converge: %v", err)
	}
	if f.state["eth2/mtu"] != "1500" {
		t.Errorf("mtu %q after the failed push, want 1500 back", f.state["eth2/mtu"])
	}
}

func TestRollbackAndConfirm(t *testing.T) {
	f := newFake(server.Name)
	f.installed(digestB, "eth2/mtu=1500")
	oldConf, oldRuntime := string(f.files[testSettingsPath]), string(f.files[testRuntimePath])
	tg := newTarget(t, f, digestA)
	conf := settingsOf(digestA, "eth2/mtu=4200")
	ctx := context.Background()
	if err := tg.PushConfirmed(ctx, server, remediation(server.Name, digestA, conf, "mtu"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if f.state["eth2/mtu"] != "4200" {
		t.Fatalf("mtu %q after the push", f.state["eth2/mtu"])
	}
	if err := tg.Push(ctx, server, remediation(server.Name, digestA, conf, "mtu")); err == nil {
		t.Error("a second push while one waits for its confirmation was taken")
	}
	if err := tg.Rollback(ctx, server); err != nil {
		t.Fatal(err)
	}
	if f.state["eth2/mtu"] != "1500" || string(f.files[testSettingsPath]) != oldConf || string(f.files[testRuntimePath]) != oldRuntime {
		t.Errorf("after rollback: mtu %q, settings or runtime not the previous ones", f.state["eth2/mtu"])
	}
	if err := tg.Confirm(ctx, server); err == nil {
		t.Error("Confirm after Rollback succeeded")
	}

	if err := tg.PushConfirmed(ctx, server, remediation(server.Name, digestA, conf, "mtu"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := tg.Confirm(ctx, server); err != nil {
		t.Fatal(err)
	}
	if err := tg.Rollback(ctx, server); err == nil {
		t.Error("Rollback after Confirm succeeded")
	}
	if f.state["eth2/mtu"] != "4200" {
		t.Errorf("mtu %q after confirm", f.state["eth2/mtu"])
	}
}

func TestConfirmTimerLapses(t *testing.T) {
	f := newFake(server.Name)
	f.installed(digestA, "eth2/mtu=1500")
	tg := newTarget(t, f, digestA)
	ctx := context.Background()
	if err := tg.PushConfirmed(ctx, server, remediation(server.Name, digestA, settingsOf(digestA, "eth2/mtu=4200"), "mtu"), 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.mu.Lock()
		mtu := f.state["eth2/mtu"]
		f.mu.Unlock()
		if mtu == "1500" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mtu %q 5 s after the timer: not rolled back", mtu)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if err := tg.Confirm(ctx, server); err == nil || !strings.Contains(err.Error(), "lapsed") {
		t.Errorf("Confirm after the timer: %v", err)
	}
}

func TestRollbackWithoutEarlierSettings(t *testing.T) {
	f := newFake(server.Name)
	tg := newTarget(t, f, digestA)
	ctx := context.Background()
	conf := settingsOf(digestA, "eth2/mtu=4200")
	if err := tg.PushConfirmed(ctx, server, remediation(server.Name, digestA, conf, "mtu"), time.Minute); err != nil {
		t.Fatal(err)
	}
	err := tg.Rollback(ctx, server)
	if !errors.Is(err, errNoEarlier) {
		t.Errorf("rolling back a server that had no settings: %v", err)
	}
	if string(f.files[testSettingsPath]) != conf || f.state["eth2/mtu"] != "4200" {
		t.Errorf("the pushed settings did not stay")
	}
}

func TestRollbackReportsDrift(t *testing.T) {
	// The server differed from its previous settings before the push:
	// the rollback sets them as those settings say, and the error of a
	// failed push says so.
	f := newFake(server.Name)
	f.installed(digestA, "eth2/mtu=1500", "eth3/mtu=1500")
	f.state["eth3/mtu"] = "9000"
	f.failKey = "eth2/mtu"
	tg := newTarget(t, f, digestA)
	err := tg.Push(context.Background(), server, remediation(server.Name, digestA, settingsOf(digestA, "eth2/mtu=4200", "eth3/mtu=1500"), "mtu"))
	if err == nil || !strings.Contains(err.Error(), "before the push it differed from them: DRIFT eth3/mtu: have 9000, want 1500") {
		t.Errorf("a failed push on a drifted server: %v", err)
	}
}

func TestPushRefusesARemediationItCannotTrust(t *testing.T) {
	conf := settingsOf(digestA, "eth2/mtu=4200")
	good := remediation(server.Name, digestA, conf, "mtu")
	for name, rem := range map[string][]byte{
		"another device":   []byte(strings.Replace(string(good.Content), `"gpu-0000"`, `"gpu-0001"`, 1)),
		"another path":     []byte(strings.Replace(string(good.Content), testSettingsPath, "/etc/sudoers.d/rocefab", 1)),
		"another content":  []byte(strings.Replace(string(good.Content), "4200", "9000", 1)),
		"another runtime":  remediation(server.Name, digestB, settingsOf(digestB, "eth2/mtu=4200"), "mtu").Content,
		"unknown section":  remediation(server.Name, digestA, conf, "mtu", "reboot").Content,
		"repeated section": remediation(server.Name, digestA, conf, "mtu", "mtu").Content,
		"not json":         []byte("ip link set eth2 mtu 4200\n"),
	} {
		f := newFake(server.Name)
		tg := newTarget(t, f, digestA)
		r := good
		r.Content = rem
		if err := tg.Push(context.Background(), server, r); err == nil {
			t.Errorf("%s: pushed", name)
		}
		if n := len(f.ran()); n != 0 {
			t.Errorf("%s: %d commands ran on the server", name, n)
		}
	}
	f := newFake(server.Name)
	tg := newTarget(t, f, digestA)
	r := good
	r.Content = []byte("\n")
	if err := tg.Push(context.Background(), server, r); err != nil || len(f.ran()) != 0 {
		t.Errorf("an empty remediation: %v, %d commands", err, len(f.ran()))
	}
}

func TestNewRefuses(t *testing.T) {
	f := newFake(server.Name)
	for name, o := range map[string]Options{
		"no connect":       {Runtime: runtimeOf(digestA), RuntimePath: testRuntimePath, SettingsPath: testSettingsPath, StateFile: testStateFile},
		"relative path":    {Connect: f.connect, Runtime: runtimeOf(digestA), RuntimePath: "rocefab-host.sh", SettingsPath: testSettingsPath, StateFile: testStateFile},
		"unclean path":     {Connect: f.connect, Runtime: runtimeOf(digestA), RuntimePath: testRuntimePath, SettingsPath: "/etc/../etc/host.conf", StateFile: testStateFile},
		"not a runtime":    {Connect: f.connect, Runtime: []byte("#!/bin/sh\n"), RuntimePath: testRuntimePath, SettingsPath: testSettingsPath, StateFile: testStateFile},
		"relative root":    {Connect: f.connect, Runtime: runtimeOf(digestA), RuntimePath: testRuntimePath, SettingsPath: testSettingsPath, StateFile: testStateFile, Root: "tmp"},
		"root is the path": {Connect: f.connect, Runtime: runtimeOf(digestA), RuntimePath: "/", SettingsPath: testSettingsPath, StateFile: testStateFile},
		"no state file":    {Connect: f.connect, Runtime: runtimeOf(digestA), RuntimePath: testRuntimePath, SettingsPath: testSettingsPath},
		"state file path":  {Connect: f.connect, Runtime: runtimeOf(digestA), RuntimePath: testRuntimePath, SettingsPath: testSettingsPath, StateFile: "../host-state.json"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestScriptsOnALocalShell runs the target's own scripts with the real sh
// and coreutils below a temporary root, through the local connection:
// install replaces a file whole with its mode, cat and the digest say
// when a file is absent, and read tells a missing runtime from missing
// settings.
func TestScriptsOnALocalShell(t *testing.T) {
	root := t.TempDir()
	tg, err := New(Options{Connect: func(context.Context, *ir.Device) (Conn, error) { return Local(), nil },
		Runtime: runtimeOf(digestA), RuntimePath: testRuntimePath, SettingsPath: testSettingsPath, StateFile: testStateFile, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := tg.open(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if arts, err := s.read(ctx); err != nil || arts != nil {
		t.Fatalf("read of an empty root: %v %v", arts, err)
	}
	before := func() *pushed {
		t.Helper()
		r, err := s.script(ctx, "rocefab-before", beforeScript, nil, tg.settingsPath(), tg.runtimePath(), tg.runtimeSHA)
		if err != nil || r.Status != 0 {
			t.Fatalf("before: %+v %v", r, err)
		}
		p := &pushed{}
		if err := p.before(r.Stdout); err != nil {
			t.Fatalf("before: %v in %q", err, r.Stdout)
		}
		return p
	}
	if p := before(); p.hadConf || p.hadRuntime || !p.replacedRuntime {
		t.Errorf("before on an empty root: %+v", p)
	}
	if err := s.install(ctx, tg.settingsPath(), "0644", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.install(ctx, tg.settingsPath(), "0600", []byte("two 'quoted' $HOME\n")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, testSettingsPath)
	b, err := os.ReadFile(p)
	st, _ := os.Stat(p)
	if err != nil || string(b) != "two 'quoted' $HOME\n" || st.Mode().Perm() != 0o600 {
		t.Fatalf("installed %q mode %v: %v", b, st.Mode(), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("install left files beside: %v", ents)
	}
	if p := before(); !p.hadConf || string(p.conf) != "two 'quoted' $HOME\n" || p.hadRuntime {
		t.Errorf("before with settings: %+v", p)
	}
	if err := s.install(ctx, tg.runtimePath(), "0755", tg.opts.Runtime); err != nil {
		t.Fatal(err)
	}
	if p := before(); !p.hadRuntime || p.replacedRuntime || p.runtime != nil {
		t.Errorf("before with this build's runtime: %+v", p)
	}
	old := []byte("#!/bin/sh\n\n# no newline at the end")
	if err := s.install(ctx, tg.runtimePath(), "0755", old); err != nil {
		t.Fatal(err)
	}
	if p := before(); !p.hadRuntime || !p.replacedRuntime || string(p.runtime) != string(old) {
		t.Errorf("before with another runtime: %+v", p)
	}
	if err := os.Remove(filepath.Join(root, testRuntimePath)); err != nil {
		t.Fatal(err)
	}
	// The settings exist, the runtime does not: nothing installed yet.
	if arts, err := s.read(ctx); err != nil || arts != nil {
		t.Errorf("read without a runtime: %v %v", arts, err)
	}
	// A runtime that is there and prints no report is an error with its
	// last words.
	if err := s.install(ctx, tg.runtimePath(), "0755", []byte("#!/bin/sh\necho 'rocefab-host.sh: cannot read the settings' >&2\nexit 2\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.read(ctx); err == nil || !strings.Contains(err.Error(), "exited 2 without a report: rocefab-host.sh: cannot read the settings") {
		t.Errorf("read of a dying runtime: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	args := []string{"plain", "with space", "it's", `"dq"`, "$HOME", "`id`", "a\nb", "", `back\slash`, "*"}
	// Through a shell, as SSH runs it.
	line := ShellQuote(append([]string{"sh", "-c", `for a in "$@"; do printf '<%s>' "$a"; done`, "sh"}, args...))
	r, err := Local().Run(context.Background(), []string{"sh", "-c", line}, nil)
	if err != nil || r.Status != 0 {
		t.Fatal(r, err)
	}
	var want strings.Builder
	for _, a := range args {
		want.WriteString("<" + a + ">")
	}
	if string(r.Stdout) != want.String() {
		t.Errorf("through the shell %q, want %q", r.Stdout, want.String())
	}
}

func TestLocalConn(t *testing.T) {
	ctx := context.Background()
	r, err := Local().Run(ctx, []string{"sh", "-c", "cat; echo err >&2; exit 7"}, []byte("in"))
	if err != nil || r.Status != 7 || string(r.Stdout) != "in" || string(r.Stderr) != "err\n" {
		t.Errorf("%+v %v", r, err)
	}
	if _, err := Local().Run(ctx, []string{"/nonexistent/rocefab"}, nil); err == nil {
		t.Error("a missing program ran")
	}
	c, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Local().Run(c, []string{"sleep", "10"}, nil); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("a command past its deadline: %v after %v", err, time.Since(start))
	}
}

func TestBeforeRefusesWhatItCannotRead(t *testing.T) {
	for _, out := range []string{
		"",
		"settings 10\nshort",
		"settings absent\n",
		"settings absent\nruntime maybe\n",
		"settings -1\nruntime absent\n",
		"runtime same\nsettings absent\n",
		"settings absent\nruntime same\ntrailing",
		"sudo: a password is required\n",
	} {
		p := &pushed{}
		if err := p.before([]byte(out)); err == nil {
			t.Errorf("%q read as %+v", out, p)
		}
	}
	p := &pushed{}
	if err := p.before([]byte("settings 0\nruntime 3\nabc")); err != nil || !p.hadConf || len(p.conf) != 0 || string(p.runtime) != "abc" {
		t.Errorf("an empty host.conf and another runtime: %+v %v", p, err)
	}
}

func TestConfirmAnEmptyPush(t *testing.T) {
	f := newFake(server.Name)
	tg := newTarget(t, f, digestA)
	ctx := context.Background()
	empty := remediation(server.Name, digestA, "")
	empty.Content = nil
	if err := tg.PushConfirmed(ctx, server, empty, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := tg.Confirm(ctx, server); err != nil {
		t.Errorf("confirming an empty push: %v", err)
	}
	if err := tg.PushConfirmed(ctx, server, empty, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := tg.Rollback(ctx, server); err != nil {
		t.Errorf("rolling back an empty push: %v", err)
	}
	if n := len(f.ran()); n != 0 {
		t.Errorf("%d commands ran for empty pushes", n)
	}
}

// TestJournalOutlivesTheProcess: a push with a timer left unconfirmed by
// an apply that ended (its timer died with it; a new target is a new
// process) stays on the server, and the journal makes it known to the
// next one: pending with no deadline, rolled back to the settings and
// runtime the server had, or confirmed, and crossed out either way.
func TestJournalOutlivesTheProcess(t *testing.T) {
	for _, settle := range []string{"confirm", "rollback"} {
		t.Run(settle, func(t *testing.T) {
			f := newFake(server.Name)
			f.installed(digestB, "eth2/mtu=1500")
			oldConf, oldRuntime := string(f.files[testSettingsPath]), string(f.files[testRuntimePath])
			journal := targets.NewJournal(filepath.Join(t.TempDir(), "pending"))
			withJournal := func() *Target {
				tg := newTarget(t, f, digestA)
				tg.opts.Journal = journal
				return tg
			}
			ctx := context.Background()
			first := withJournal()
			if err := first.PushConfirmed(ctx, server, remediation(server.Name, digestA, settingsOf(digestA, "eth2/mtu=4200"), "mtu"), time.Minute); err != nil {
				t.Fatal(err)
			}
			first.mu.Lock() // the apply ends: its timer with it
			first.pending[server.Name].timer.Stop()
			first.mu.Unlock()

			next := withJournal()
			pc, err := next.Pending(ctx, server)
			if err != nil || pc == nil || !pc.Deadline.IsZero() {
				t.Fatalf("the next process finds %+v, %v: want the push, with no deadline", pc, err)
			}
			if settle == "confirm" {
				err = next.Confirm(ctx, server)
			} else {
				err = next.Rollback(ctx, server)
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"confirm": "4200", "rollback": "1500"}[settle]
			if f.state["eth2/mtu"] != want {
				t.Errorf("mtu %q after %s, want %s", f.state["eth2/mtu"], settle, want)
			}
			if settle == "rollback" && (string(f.files[testSettingsPath]) != oldConf || string(f.files[testRuntimePath]) != oldRuntime) {
				t.Error("after the rollback the settings or runtime are not the previous ones")
			}
			if e, err := journal.Load(server.Name); e != nil || err != nil {
				t.Errorf("the journal still records %+v, %v", e, err)
			}
			if pc, err := next.Pending(ctx, server); pc != nil || err != nil {
				t.Errorf("still pending: %+v, %v", pc, err)
			}
		})
	}
}
