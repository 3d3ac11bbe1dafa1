package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	rhost "github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/targets"
)

// sudoUser is the unprivileged user the sudo test logs in as; it exists
// only in the mount namespace of the test's sshd.
const sudoUser = "rocefab-sudo"

// documentedSudoers is the sudoers entry docs/transports.md gives, for
// the user the test logs in as.
func documentedSudoers(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "transports.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "netops ALL="); ok {
			return sudoUser + " ALL=" + rest
		}
	}
	t.Fatal("docs/transports.md gives no sudoers entry for netops")
	return ""
}

// freeUID is a user id /etc/passwd does not use.
func freeUID(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/etc/passwd")
	if err != nil {
		t.Skipf("no /etc/passwd: %v", err)
	}
	defer f.Close()
	used := map[int]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Split(sc.Text(), ":"); len(fs) > 3 {
			if id, err := strconv.Atoi(fs[2]); err == nil {
				used[id] = true
			}
		}
	}
	for id := 64100; ; id++ {
		if !used[id] {
			return id
		}
	}
}

// sudoServer starts a real OpenSSH sshd in ns, in a mount namespace of its
// own where /etc and /usr/local/lib are overlays of the machine's (the
// machine's files are never written): a user sudoUser exists there, in
// no group, allowed by /etc/sudoers.d/rocefab to run exactly the sudoers
// line given and nothing else, and /sys shows the network namespace's devices and an
// empty rdma_cm configfs group (the server has no RDMA NICs). The runtime
// runs with its default paths (sudo passes it no environment).
func sudoServer(t *testing.T, ns *netnsServer, sudoersLine string) *sshd {
	t.Helper()
	for _, tool := range []string{"sudo", "unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (apt-get install sudo util-linux mount)", tool)
		}
	}
	// The entry goes where the documentation puts it, beside the
	// distribution's /etc/sudoers, whose secure_path puts tc on the
	// runtime's PATH.
	if b, err := os.ReadFile("/etc/sudoers"); err != nil || !strings.Contains(string(b), "includedir /etc/sudoers.d") {
		t.Skipf("/etc/sudoers does not read /etc/sudoers.d (%v): not a Debian sudo", err)
	}
	dir, err := os.MkdirTemp("", "rocefab-sudo-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	uid := freeUID(t)
	if err := os.Chown(home, uid, uid); err != nil {
		t.Fatal(err)
	}
	// The user reads its authorized keys and enters its home: the
	// directory is not private.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	setup := fmt.Sprintf(`set -e
mkdir -p "$D/t" && mount -t tmpfs tmpfs "$D/t" && mkdir "$D/t/eu" "$D/t/ew" "$D/t/lu" "$D/t/lw" "$D/sys"
mount -t overlay overlay -o lowerdir=/etc,upperdir="$D/t/eu",workdir="$D/t/ew" /etc
mount -t overlay overlay -o lowerdir=/usr/local/lib,upperdir="$D/t/lu",workdir="$D/t/lw" /usr/local/lib
mount -t tmpfs tmpfs /run/lock
mount --bind /sys "$D/sys" && mount -t tmpfs tmpfs /sys
mkdir -p /sys/class /sys/devices /sys/kernel/config/rdma_cm
mount --bind "$D/sys/class" /sys/class && mount --bind "$D/sys/devices" /sys/devices
echo '%[1]s:x:%[2]d:%[2]d::%[3]s:/bin/sh' >> /etc/passwd
echo '%[1]s:x:%[2]d:' >> /etc/group
echo '%[1]s:*:19000:0:99999:7:::' >> /etc/shadow
mkdir -p /etc/sudoers.d
printf '%%s\n' "$SUDOERS" > /etc/sudoers.d/rocefab
chmod 0440 /etc/sudoers.d/rocefab
exec "$@"
`, sudoUser, uid, home)
	wrap := func(argv []string) []string {
		return append([]string{"env", "D=" + dir, "SUDOERS=" + sudoersLine,
			"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", setup, "sshd-setup"}, argv...)
	}
	return startSSHDWith(t, ns, sudoUser, dir, wrap)
}

// sudoTarget is the target the command line makes for servers with sudo:
// true, logging in to srv as its user.
func sudoTarget(t *testing.T, ns *netnsServer, srv *sshd, rt []byte) *Target {
	t.Helper()
	tg, err := New(Options{
		Connect: func(ctx context.Context, d *ir.Device) (Conn, error) {
			c, err := srv.login(ns.name, srv.knownHosts)
			if err != nil {
				return nil, err
			}
			return SSH(c), nil
		},
		Prefix:  SudoPrefix(),
		Runtime: rt, RuntimePath: rhost.RuntimePath, SettingsPath: rhost.SettingsPath, StateFile: rhost.StateFile,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestNetnsSudo: a user with only the sudoers entry docs/transports.md
// gives, logged in over a real OpenSSH sshd and running real sudo, has a
// fresh server planned, pushed and converged; with an entry that allows
// sh but not the runtime, the push fails with sudo's refusal, and the
// error says the server could not be put back (which apply reports as
// unknown, never rolled back).
func TestNetnsSudo(t *testing.T) {
	line := documentedSudoers(t)
	ns := newNetns(t)
	d, rt := shapedServer(t)
	srv := sudoServer(t, ns, line)
	converge(t, ns, sudoTarget(t, ns, srv, rt), d)

	ns2 := newNetns(t)
	short := sudoServer(t, ns2, sudoUser+" ALL=(root) NOPASSWD: /bin/sh")
	tg := sudoTarget(t, ns2, short, rt)
	_, rem := plan(t, tg, d)
	err := tg.Push(context.Background(), d, rem)
	if _, ok := errors.AsType[*targets.PutBackError](err); !ok || !strings.Contains(err.Error(), "a password is required") {
		t.Errorf("push with sudo refusing the runtime: %v, want sudo's refusal and a failed put-back", err)
	}
}
