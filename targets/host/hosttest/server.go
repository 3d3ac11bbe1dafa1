package hosttest

import (
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Server is one server of a test fleet: a network namespace with its
// netdevs, and a real sshd that runs, with every session it starts, in a
// mount namespace of its own, where the host runtime runs with its
// default paths as on a real server:
//
//   - /etc and /usr/local/lib are overlays of this machine's, written in a
//     tmpfs (host.conf and the runtime land there, never on the machine);
//   - /run/lock is a tmpfs (the runtime's lock);
//   - /root is an empty tmpfs, root's home as on a fresh server: the
//     shell of every session sources root's ~/.bashrc, and this
//     machine's may start tools of its own in each (a pyenv init that
//     rehashes under a lock shared by every server costs a session
//     seconds);
//   - /usr/local/sbin, first on the PATH sshd gives root, is the
//     directory of stand-in tools the test gives (mlnx_qos, dcb);
//   - /sys is the tree Sys: class/net/NAME for each netdev links to the
//     namespace's own device (under devices/, the real /sys/devices of
//     the namespace), kernel/config/rdma_cm is an empty configfs group,
//     and the test adds the drivers' knobs (Write, FakeNetdev).
type Server struct {
	*Netns
	// SSHD is the server's sshd, logged in to as root.
	SSHD *SSHD
	// Sys is the directory mounted at the server's /sys.
	Sys string
}

// ServerOptions configure NewServer.
type ServerOptions struct {
	// Netdevs are the server's veth netdevs.
	Netdevs []string
	// Tools is a directory of stand-in tools, mounted at /usr/local/sbin;
	// none when empty.
	Tools string
	// User logs in (root when empty); Setup is shell run as root in the
	// mount namespace before sshd starts, with $D the server's directory
	// (to add that user, or a sudoers entry).
	User, Setup string
	// Key is the client key sshd lets log in; a new one when nil.
	Key ed25519.PrivateKey
}

// NewServer starts a server. It skips t without root, ip, sshd, unshare,
// mount or nsenter.
func NewServer(t testing.TB, o ServerOptions) *Server {
	t.Helper()
	ns := NewNetns(t, o.Netdevs...)
	Need(t, "util-linux mount", "unshare", "mount", "nsenter")
	for _, d := range []string{"/etc", "/usr/local/lib", "/usr/local/sbin", "/run/lock", "/root"} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Skipf("needs the directory %s to mount over in the server's mount namespace: %v", d, err)
		}
	}
	// Not t.TempDir: an unprivileged user reads its authorized keys and
	// enters its home below it, which TempDir's parent (0700) forbids.
	dir, err := os.MkdirTemp("", "rocefab-server-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Server{Netns: ns, Sys: filepath.Join(dir, "sys")}
	for _, d := range []string{"devices", "class/net", "kernel/config/rdma_cm"} {
		if err := os.MkdirAll(filepath.Join(s.Sys, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, dev := range o.Netdevs {
		if err := os.Symlink("../../devices/virtual/net/"+dev, filepath.Join(s.Sys, "class/net", dev)); err != nil {
			t.Fatal(err)
		}
	}
	tools := ""
	if o.Tools != "" {
		tools = `mount --bind "$TOOLS" /usr/local/sbin` + "\n"
	}
	setup := `set -e
mkdir -p "$D/t" && mount -t tmpfs tmpfs "$D/t" && mkdir "$D/t/eu" "$D/t/ew" "$D/t/lu" "$D/t/lw"
mount -t overlay overlay -o lowerdir=/etc,upperdir="$D/t/eu",workdir="$D/t/ew" /etc
mount -t overlay overlay -o lowerdir=/usr/local/lib,upperdir="$D/t/lu",workdir="$D/t/lw" /usr/local/lib
mount -t tmpfs tmpfs /run/lock
mount -t tmpfs tmpfs /root
mount --bind /sys/devices "$D/sys/devices" && mount --rbind "$D/sys" /sys
` + tools + o.Setup + `
exec "$@"
`
	wrap := func(argv []string) []string {
		return append([]string{"env", "D=" + dir, "TOOLS=" + o.Tools,
			"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", setup, "server-setup"}, argv...)
	}
	s.SSHD = StartSSHD(t, ns, SSHDOptions{User: o.User, Dir: dir, Wrap: wrap, Key: o.Key})
	return s
}

// Write writes content to rel below Sys, making its directories.
func (s *Server) Write(t testing.TB, rel, content string) {
	t.Helper()
	path := filepath.Join(s.Sys, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Read returns the content of rel below Sys without surrounding blanks.
func (s *Server) Read(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Sys, rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// FakeNetdev makes class/net/DEV a directory of the test's instead of the
// link to the veth, for the knobs an RDMA NIC's driver keeps there (the
// mlx5 ECN tree) that a veth has not. ip and tc still see the veth.
func (s *Server) FakeNetdev(t testing.TB, dev string) {
	t.Helper()
	p := filepath.Join(s.Sys, "class/net", dev)
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// ReadOnly makes rel below Sys read-only on the server (a read-only bind
// mount in its mount namespace): reads keep working, and a write fails
// as a driver's refusal does.
func (s *Server) ReadOnly(t testing.TB, rel string) {
	t.Helper()
	p := filepath.Join("/sys", rel)
	out, err := exec.Command("nsenter", "-t", itoa(s.SSHD.Pid), "-m", "--", "mount", "--bind", "-o", "ro", p, p).CombinedOutput()
	if err != nil {
		t.Fatalf("read-only %s: %v: %s", p, err, out)
	}
}
