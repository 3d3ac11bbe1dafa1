package host

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// TestRuntimeDigest checks that the digest the runtime's header states is
// the SHA-256 of the file from the line it names on, that the runtime's
// constant and every settings file carry it, and that the body is the
// runtime the single-file form ends with.
func TestRuntimeDigest(t *testing.T) {
	rt := string(runtimeFile())
	m := regexp.MustCompile(`(?m)^# Runtime digest: sha256 ([0-9a-f]{64})\n# of this file from line (\d+) on \(tail -n \+(\d+) rocefab-host.sh \| sha256sum\)\.$`).FindStringSubmatch(rt)
	if m == nil {
		t.Fatal("the runtime's header states no digest")
	}
	first, _ := strconv.Atoi(m[2])
	if m[3] != m[2] {
		t.Errorf("the header names line %s and line %s", m[2], m[3])
	}
	lines := strings.SplitAfter(rt, "\n")
	body := strings.Join(lines[first-1:], "")
	sum := sha256.Sum256([]byte(body))
	if got := hex.EncodeToString(sum[:]); got != m[1] {
		t.Errorf("the SHA-256 of the file from line %d is %s; the header says %s", first, got, m[1])
	}
	if body != runtime {
		t.Errorf("the file from line %d on is not the runtime's body", first)
	}
	if !strings.Contains(rt, "\nreadonly RUNTIME_DIGEST='"+m[1]+"'\nreadonly EMBEDDED_SETTINGS=0\n") {
		t.Error("the runtime's RUNTIME_DIGEST is not its digest")
	}
	for _, d := range handled(irtest.Fabric()) {
		if !strings.Contains(render(t, d), "\nreadonly SETTINGS_FOR_RUNTIME='"+m[1]+"'\n") {
			t.Errorf("%s: host.conf does not name the runtime's digest", d.Name)
		}
		if !strings.Contains(renderScript(t, d), "\nreadonly RUNTIME_DIGEST='"+m[1]+"'\nreadonly EMBEDDED_SETTINGS=1\n") {
			t.Errorf("%s: host.sh does not carry the runtime's digest", d.Name)
		}
	}
	if !strings.Contains(runtime, "\nreadonly DEFAULT_SETTINGS="+SettingsPath+"\n") {
		t.Errorf("the runtime's default settings file is not %s", SettingsPath)
	}
}

// TestRenderFabric: the runtime and the unit once per build, and only
// for a fabric with servers.
func TestRenderFabric(t *testing.T) {
	f := irtest.Fabric()
	arts := RenderFabric(f)
	if len(arts) != 2 || arts[0].Path != RuntimeFile || arts[1].Path != UnitFile {
		t.Fatalf("RenderFabric: %v", arts)
	}
	sw := *f
	sw.Devices = f.Switches()
	if arts := RenderFabric(&sw); len(arts) != 0 {
		t.Errorf("a fabric without servers gets %d host files", len(arts))
	}
	if arts := RenderFabric(nil); len(arts) != 0 {
		t.Error("a nil fabric gets host files")
	}
}

// TestHostConfsDifferOnlyPerHost renders two servers of the test fabric:
// once the name is the same, their settings differ only in the lines
// that describe each NIC's link (its peer port).
func TestHostConfsDifferOnlyPerHost(t *testing.T) {
	hosts := handled(irtest.Fabric())
	if len(hosts) < 2 {
		t.Fatal("the test fabric has fewer than two servers")
	}
	a, b := hosts[0], hosts[len(hosts)-1]
	ca := strings.Split(render(t, a), "\n")
	cb := strings.Split(strings.ReplaceAll(render(t, b), b.Name, a.Name), "\n")
	if len(ca) != len(cb) {
		t.Fatalf("%s's host.conf has %d lines, %s's %d", a.Name, len(ca), b.Name, len(cb))
	}
	nicLine := regexp.MustCompile(`^#   eth\d+ mlx5_\d+: rail \d+, `)
	differ := 0
	for i := range ca {
		if ca[i] == cb[i] {
			continue
		}
		differ++
		if !nicLine.MatchString(ca[i]) || !nicLine.MatchString(cb[i]) {
			t.Errorf("line %d differs and is not a NIC's description:\n  %s: %s\n  %s: %s", i+1, a.Name, ca[i], b.Name, cb[i])
		}
	}
	if differ == 0 {
		t.Errorf("%s and %s have the same settings once renamed: their NICs reach different leaf ports", a.Name, b.Name)
	}
	// And the name itself appears only where it is per host.
	for i, line := range strings.Split(render(t, a), "\n") {
		if strings.Contains(line, a.Name) && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "readonly DEVICE=") {
			t.Errorf("line %d names the server outside a comment or DEVICE: %s", i+1, line)
		}
	}
}

// TestSettingsForAnotherRuntime: the runtime refuses, before it reads
// anything of the server, settings written for another runtime, settings
// without a digest, settings others can write, and a missing file; the
// single-file host.sh refuses --settings.
func TestSettingsForAnotherRuntime(t *testing.T) {
	t.Parallel()
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	conf := w.get("host.conf") + "\n"
	other := strings.Repeat("0", 64)
	for name, c := range map[string]struct {
		conf string
		mode os.FileMode
		args []string
		want string
	}{
		"other runtime": {strings.Replace(conf, runtimeDigest, other, 1), 0o644, nil,
			"was written for runtime 0000000000000000, and this is runtime " + runtimeDigest[:16] + ": install the rocefab-host.sh and the host.conf of one rocefab build"},
		"no digest": {strings.Replace(conf, "readonly SETTINGS_FOR_RUNTIME=", "readonly NOT_FOR_RUNTIME=", 1), 0o644, nil,
			"has no SETTINGS_FOR_RUNTIME line: it is not rocefab host settings"},
		"group writable": {conf, 0o664, nil, "is writable by group or others (mode 664): not read"},
		"missing":        {conf, 0o644, []string{"--settings", filepath.Join(w.dir, "nowhere.conf")}, "cannot read the settings " + filepath.Join(w.dir, "nowhere.conf")},
	} {
		t.Run(name, func(t *testing.T) {
			w.write("host.conf", c.conf)
			if err := os.Chmod(w.settings, c.mode); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := w.run(append([]string{"--check"}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 and %q\nstdout:\n%s\nstderr:\n%s", code, c.want, out, stderr)
			}
			if l := w.log(); len(l) > 0 {
				t.Errorf("the runtime read the server with refused settings: %v", l)
			}
		})
	}
	// A runtime of another build refuses these settings too.
	w.write("host.conf", conf)
	os.Chmod(w.settings, 0o644)
	rt := w.get("rocefab-host.sh") + "\n"
	w.write("rocefab-host.sh", strings.Replace(rt, "readonly RUNTIME_DIGEST='"+runtimeDigest+"'", "readonly RUNTIME_DIGEST='"+other+"'", 1))
	_, stderr, code := w.run("--check")
	if code != 2 || !strings.Contains(stderr, "was written for runtime "+runtimeDigest[:16]+", and this is runtime 0000000000000000") {
		t.Errorf("another runtime: exit %d\n%s", code, stderr)
	}
	w.write("rocefab-host.sh", rt)
	if _, stderr, code := w.run("--check"); code != 1 {
		t.Errorf("the matching pair: exit %d, want 1 (drift)\n%s", code, stderr)
	}
	_, stderr, code = w.runSingle("--check", "--settings", w.settings)
	if code != 2 || !strings.Contains(stderr, "--settings: this script carries the settings of gpu-0000") {
		t.Errorf("host.sh --settings: exit %d\n%s", code, stderr)
	}
}

// TestNetdevOnly runs what one unit instance runs: only the named
// interface's settings, its HCA's ToS and its shaping.
func TestNetdevOnly(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	out, stderr, code := w.run("--check", "--netdev", "eth3")
	if code != 1 || !strings.Contains(out, "DRIFT eth3 mtu") || !strings.Contains(out, "DRIFT mlx5_1 port 1 cma_roce_tos") ||
		!strings.Contains(out, "gpu-0000 eth3: ") {
		t.Errorf("--netdev eth3: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	for _, other := range []string{"eth0", "eth2", "eth4", "eth5", "mlx5_0", "mlx5_2"} {
		if strings.Contains(out, " "+other+" ") || strings.Contains(out, " "+other+":") {
			t.Errorf("--netdev eth3 reports on %s:\n%s", other, out)
		}
	}
	// eth0 is only shaped: no NIC section touches anything.
	os.Truncate(filepath.Join(w.dir, "state", "log"), 0)
	out, stderr, code = w.run("--check", "--netdev=eth0")
	if code != 1 || !strings.Contains(out, "DRIFT eth0 qdisc") || strings.Contains(out, "eth2") {
		t.Errorf("--netdev eth0: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	for _, l := range w.log() {
		if !strings.HasPrefix(l, "read tc") {
			t.Errorf("--netdev eth0 ran %s", l)
		}
	}
	// With eth4 gone, the instance for eth3 still succeeds.
	os.RemoveAll(filepath.Join(w.dir, "sys/class/net/eth4"))
	if out, stderr, code := w.run("--netdev", "eth3"); code != 0 {
		t.Errorf("--netdev eth3 without eth4: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	_, stderr, code = w.run("--check", "--netdev", "eth9")
	if code != 2 || !strings.Contains(stderr, "--netdev eth9: gpu-0000's settings have no such RDMA netdev or shaped interface (they have: eth2 eth3 eth4 eth5 eth0)") {
		t.Errorf("--netdev eth9: exit %d\n%s", code, stderr)
	}
}

// TestRunsWaitForEachOther holds the runtime's lock as another run would:
// a run waits, says so, and goes on once the lock is free.
func TestRunsWaitForEachOther(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), true, true)
	lock := filepath.Join(w.dir, "lock")
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("flock: %v", err)
	}
	cmd := exec.Command("bash", w.runtime, "--settings", w.settings, "--check")
	cmd.Env = w.env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the run did not wait for the lock: %v\n%s", err, out.String())
	case <-time.After(1500 * time.Millisecond):
	}
	if l := w.log(); len(l) > 0 {
		t.Errorf("the run read the server while another held the lock: %v", l)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "waiting for another run to finish (flock "+lock+")") ||
			!strings.Contains(out.String(), "gpu-0000: in sync with the intent") {
			t.Errorf("after the lock was freed: %v\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the run did not finish once the lock was free:\n%s", out.String())
	}
}

// TestSingleFileAppliesAlone runs the single-file host.sh with no other
// file beside it, as a server without the runtime has it.
func TestSingleFileAppliesAlone(t *testing.T) {
	d := variants(t)["bare"]
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tcState{}, true, true, "mlnx_qos", "ip")
	os.Remove(w.runtime)
	os.Remove(w.settings)
	out, stderr, code := w.runSingle()
	if code != 0 || !strings.Contains(out, "gpu-0000: in sync with the intent, nothing changed") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
}

// TestSettingsCommandRefused appends or splices shell into a server's
// host.conf, as whoever edits a saved plan or the file on the server
// could: the runtime, run by bash as on a server, reads the file as data,
// refuses the first line it would not write with that line's number, and
// runs none of it; nor does it read the server.
func TestSettingsCommandRefused(t *testing.T) {
	t.Parallel()
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	// A server's usual locale, where ranges in a regular expression may
	// take letters beyond ASCII; the runtime reads its settings in C.
	w.env = append(w.env, "LC_ALL=C.UTF-8")
	conf := w.get("host.conf") + "\n"
	lines := strings.Split(strings.TrimSuffix(conf, "\n"), "\n")
	lineOf := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		t.Fatalf("host.conf has no line %q", prefix)
		return 0
	}
	pwned := filepath.Join(w.dir, "pwned")
	touch := "touch " + pwned
	// replace swaps the line that starts with prefix for with.
	replace := func(prefix, with string) string {
		i := lineOf(prefix) - 1
		out := slices.Clone(lines)
		out[i] = with
		return strings.Join(out, "\n") + "\n"
	}
	mtu, device, netdevs, dscp := lineOf("readonly MTU="), lineOf("readonly DEVICE="), lineOf("readonly -a NETDEVS="), lineOf("readonly -a DSCP2PRIO=(")
	end := len(lines) + 1
	for name, c := range map[string]struct {
		conf string
		line int
		want string
	}{
		"appended command":       {conf + touch + "\n", end, "is not a setting"},
		"appended after a blank": {conf + "\n" + touch + "\n", end + 1, "is not a setting"},
		"semicolon":              {replace("readonly MTU=", "readonly MTU=4200; "+touch), mtu, "is not a value"},
		"ampersands":             {replace("readonly MTU=", "readonly MTU=4200 && "+touch), mtu, "is not a value"},
		"command substitution":   {replace("readonly DEVICE=", "readonly DEVICE=$("+touch+")"), device, "is not a value"},
		"substitution in quotes": {replace("readonly DEVICE=", "readonly DEVICE=\"$("+touch+")\""), device, "is not a value"},
		"backticks":              {replace("readonly DEVICE=", "readonly DEVICE=`"+touch+"`"), device, "is not a value"},
		"after a quote":          {replace("readonly DEVICE=", "readonly DEVICE='gpu-0000'$("+touch+")"), device, "is not a value"},
		"inside a quote":         {replace("readonly DEVICE=", "readonly DEVICE='$("+touch+")'"), device, "is not one rocefab writes"},
		"array element":          {replace("readonly -a NETDEVS=", "readonly -a NETDEVS=('eth2' $("+touch+"))"), netdevs, "is not a value"},
		"new line in an array":   {replace("readonly -a DSCP2PRIO=(", "readonly -a DSCP2PRIO=(\n"+touch), dscp + 1, "inside the array DSCP2PRIO"},
		"row of an array":        {replace("readonly -a DSCP2PRIO=(", "readonly -a DSCP2PRIO=(\n\t0 0 0 0 0 0 0 0; "+touch), dscp + 1, "is not a value"},
		"assignment":             {replace("readonly MTU=", "PATH="+w.dir), mtu, "is not a setting"},
		"function":               {replace("readonly MTU=", "readonly MTU=4200\nmain() { "+touch+"; }"), mtu + 1, "is not a setting"},
		"unknown key":            {replace("readonly MTU=", "readonly PROMPT_COMMAND='true'"), mtu, "unknown setting PROMPT_COMMAND"},
		"second value":           {replace("readonly MTU=", "readonly MTU=4200 9000"), mtu, "MTU takes one value"},
		"repeated key":           {conf + "readonly MTU=9000\n", end, "MTU is set again (first on line " + strconv.Itoa(mtu) + ")"},
		"carriage return":        {replace("readonly MTU=", "readonly MTU=4200\r"), mtu, "is not a value"},
		"not ASCII":              {replace("readonly DEVICE=", "readonly DEVICE='gpu-\u00e9'"), device, "is not one rocefab writes"},
		"missing key":            {replace("readonly MTU=", ""), 0, "no MTU setting"},
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(w.settings, []byte(c.conf), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Truncate(filepath.Join(w.dir, "state", "log"), 0)
			out, stderr, code := w.run("--check")
			at := w.settings + ":"
			if c.line > 0 {
				at += strconv.Itoa(c.line) + ":"
			}
			if code != 2 || !strings.Contains(stderr, at) || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 and %q ... %q\nstdout:\n%s\nstderr:\n%s", code, at, c.want, out, stderr)
			}
			if _, err := os.Stat(pwned); err == nil {
				os.Remove(pwned)
				t.Error("the runtime ran the command in host.conf")
			}
			if l := w.log(); len(l) > 0 {
				t.Errorf("the runtime read the server with refused settings: %v", l)
			}
		})
	}
}

// TestEverySettingsFileParses runs the runtime on each variant's host.conf
// up to the point where it has read them: --netdev with a name none has
// makes it list the interfaces it read, and stop.
func TestEverySettingsFileParses(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	rt := filepath.Join(dir, "rocefab-host.sh")
	if err := os.WriteFile(rt, runtimeFile(), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, d := range variants(t) {
		conf := filepath.Join(dir, name+".conf")
		if err := os.WriteFile(conf, []byte(render(t, d)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("bash", rt, "--settings", conf, "--check", "--netdev", "none-such").CombinedOutput()
		var known []string
		for _, n := range d.Host.NICs {
			known = append(known, n.Port)
		}
		for _, si := range shapingPlan(d.Host.Profile) {
			known = append(known, si.name)
		}
		have := strings.Join(known, " ")
		if have == "" {
			have = "none"
		}
		want := "--netdev none-such: " + d.Name + "'s settings have no such RDMA netdev or shaped interface (they have: " + have + ")"
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %v, want %q\n%s", name, err, want, out)
		}
	}
}
