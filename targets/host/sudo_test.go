package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	rhost "github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/host/hosttest"
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

// sudoServer starts a server (hosttest.NewServer: a real OpenSSH sshd in
// a network namespace with eth0, in a mount namespace of its own where
// /etc and /usr/local/lib are overlays of the machine's, whose files are
// never written) where a user sudoUser exists, in no group, allowed by
// /etc/sudoers.d/rocefab to run exactly the sudoers line given and
// nothing else. The runtime runs with its default paths (sudo passes it
// no environment).
func sudoServer(t *testing.T, sudoersLine string) *hosttest.Server {
	t.Helper()
	hosttest.Need(t, "sudo iproute2 coreutils util-linux", "sudo", "tc", "bash", "flock", "sha256sum", "mktemp")
	// The entry goes where the documentation puts it, beside the
	// distribution's /etc/sudoers, whose secure_path puts tc on the
	// runtime's PATH.
	if b, err := os.ReadFile("/etc/sudoers"); err != nil || !strings.Contains(string(b), "includedir /etc/sudoers.d") {
		t.Skipf("/etc/sudoers does not read /etc/sudoers.d (%v): not a Debian sudo", err)
	}
	uid := freeUID(t)
	setup := fmt.Sprintf(`mkdir -p "$D/home" && chown %[2]d:%[2]d "$D/home"
echo '%[1]s:x:%[2]d:%[2]d::'"$D/home"':/bin/sh' >> /etc/passwd
echo '%[1]s:x:%[2]d:' >> /etc/group
echo '%[1]s:*:19000:0:99999:7:::' >> /etc/shadow
mkdir -p /etc/sudoers.d
printf '%%s\n' %[3]s > /etc/sudoers.d/rocefab
chmod 0440 /etc/sudoers.d/rocefab
`, sudoUser, uid, ShellQuote([]string{sudoersLine}))
	return hosttest.NewServer(t, hosttest.ServerOptions{Netdevs: []string{"eth0"}, User: sudoUser, Setup: setup})
}

// sudoTarget is the target the command line makes for servers with sudo:
// true, logging in to srv as its user.
func sudoTarget(t *testing.T, srv *hosttest.SSHD, rt []byte) *Target {
	t.Helper()
	tg, err := New(Options{
		Connect: func(ctx context.Context, d *ir.Device) (Conn, error) {
			c, err := srv.Login(srv.KnownHosts)
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
	d, rt := shapedServer(t)
	srv := sudoServer(t, line)
	converge(t, srv.Netns, sudoTarget(t, srv.SSHD, rt), d)

	short := sudoServer(t, sudoUser+" ALL=(root) NOPASSWD: /bin/sh")
	tg := sudoTarget(t, short.SSHD, rt)
	_, rem := plan(t, tg, d)
	err := tg.Push(context.Background(), d, rem)
	if _, ok := errors.AsType[*targets.PutBackError](err); !ok || !strings.Contains(err.Error(), "a password is required") {
		t.Errorf("push with sudo refusing the runtime: %v, want sudo's refusal and a failed put-back", err)
	}
}
