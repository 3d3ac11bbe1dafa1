package hosttest

import (
	"bytes"
	"cmp"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHD is a real OpenSSH sshd listening inside a network namespace, with
// a host key and a client key of its own.
type SSHD struct {
	// Addr is where it listens, inside its namespace.
	Addr string
	// Client is the key it lets log in.
	Client gossh.Signer
	// HostKey is its host key.
	HostKey gossh.PublicKey
	// KnownHosts is a known_hosts file that holds HostKey for Addr.
	KnownHosts string
	// Log is what sshd printed (-e); a failed test logs it.
	Log *bytes.Buffer
	// User is who logs in; root when empty.
	User string
	// Pid is sshd's process, whose mount namespace is the server's.
	Pid int

	ns   *Netns
	priv ed25519.PrivateKey
}

// SSHDOptions configure StartSSHD.
type SSHDOptions struct {
	// User logs in; root when empty.
	User string
	// Dir holds sshd's files; a temporary directory when empty.
	Dir string
	// Wrap, when set, makes the command that starts sshd from sshd's own
	// argv (to set up its mount namespace first); without it, sshd runs
	// in one where root's home is empty (freshHome).
	Wrap func(argv []string) []string
	// Key is the client key it lets log in; a new one when nil (servers
	// of one inventory share one).
	Key ed25519.PrivateKey
}

// StartSSHD starts sshd in ns and waits until it listens. It skips t
// without /usr/sbin/sshd or ssh-keygen, or, without o.Wrap, unshare or
// mount.
func StartSSHD(t testing.TB, ns *Netns, o SSHDOptions) *SSHD {
	t.Helper()
	const bin = "/usr/sbin/sshd"
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("needs %s (apt-get install openssh-server): %v", bin, err)
	}
	Need(t, "openssh-client", "ssh-keygen")
	// sshd refuses to start without its privilege separation directory,
	// which the package's service would create.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Skipf("cannot create /run/sshd: %v", err)
	}
	dir := cmp.Or(o.Dir, t.TempDir())
	hostKey := filepath.Join(dir, "host_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	priv := o.Key
	if priv == nil {
		var err error
		if _, priv, err = ed25519.GenerateKey(rand.Reader); err != nil {
			t.Fatal(err)
		}
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(dir, "authorized_keys")
	// sshd reads the keys as the user logging in.
	if err := os.WriteFile(auth, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o644); err != nil {
		t.Fatal(err)
	}
	// In a namespace of its own every port is free.
	port := 20000 + int(time.Now().UnixNano()%20000)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg := filepath.Join(dir, "sshd_config")
	conf := fmt.Sprintf(`ListenAddress %s
HostKey %s
PidFile none
AuthorizedKeysFile %s
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
`, addr, hostKey, auth)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &bytes.Buffer{}
	argv := []string{bin, "-D", "-e", "-f", cfg}
	if o.Wrap != nil {
		argv = o.Wrap(argv)
	} else {
		argv = freshHome(t, argv)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns.Name}, argv...)...)
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("sshd log:\n%s", log)
		}
	})
	pubBytes, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := gossh.ParseAuthorizedKey(pubBytes)
	if err != nil {
		t.Fatal(err)
	}
	s := &SSHD{Addr: addr, Client: signer, HostKey: pub, Log: log, User: o.User, Pid: cmd.Process.Pid, ns: ns, priv: priv}
	s.KnownHosts = s.WriteKnownHosts(t, addr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := ns.Dial(addr)
		if err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not listen on %s after 10 s: %v\n%s", addr, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freshHome runs argv (sshd) in a mount namespace of its own where /root
// is an empty tmpfs, root's home as on a fresh server: the shell of every
// session sources root's ~/.bashrc, and this machine's may start tools of
// its own there (a pyenv init that rehashes under a lock every server
// shares costs a session seconds).
func freshHome(t testing.TB, argv []string) []string {
	t.Helper()
	Need(t, "util-linux mount", "unshare", "mount")
	return append([]string{"unshare", "--mount", "--propagation", "private", "--",
		"sh", "-c", `mount -t tmpfs tmpfs /root && exec "$@"`, "sshd"}, argv...)
}

// KnownHostsLine is the known_hosts line of s's host key for addr.
func (s *SSHD) KnownHostsLine(addr string) string {
	return knownhosts.Line([]string{knownhosts.Normalize(addr)}, s.HostKey)
}

// WriteKnownHosts writes a known_hosts file, in a temporary directory,
// that holds s's host key for addr, and returns its path.
func (s *SSHD) WriteKnownHosts(t testing.TB, addr string) string {
	t.Helper()
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(s.KnownHostsLine(addr)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return kh
}

// WriteClientKey writes the private key s lets log in to path, as an
// OpenSSH key file of mode 0600.
func (s *SSHD) WriteClientKey(t testing.TB, path string) {
	t.Helper()
	blk, err := gossh.MarshalPrivateKey(s.priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Login logs in to s as its user (root by default), from inside its
// namespace, checking its host key against knownHostsFile.
func (s *SSHD) Login(knownHostsFile string) (*gossh.Client, error) {
	return s.LoginAt(s.Addr, knownHostsFile)
}

// LoginAt is Login to addr, where s may not listen: for a closed port.
func (s *SSHD) LoginAt(addr, knownHostsFile string) (*gossh.Client, error) {
	cb, err := knownhosts.New(knownHostsFile)
	if err != nil {
		return nil, err
	}
	c, err := s.ns.Dial(addr)
	if err != nil {
		return nil, err
	}
	cc, chans, reqs, err := gossh.NewClientConn(c, addr, &gossh.ClientConfig{
		User: cmp.Or(s.User, "root"), Auth: []gossh.AuthMethod{gossh.PublicKeys(s.Client)}, HostKeyCallback: cb,
		HostKeyAlgorithms: []string{gossh.KeyAlgoED25519}, Timeout: 10 * time.Second,
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	return gossh.NewClient(cc, chans, reqs), nil
}

// Forward listens on a free loopback port of this machine's own network
// namespace and joins each connection to s inside its namespace, for a
// client that dials TCP (the command line): it returns the address. The
// listener and every connection through it close when the test ends.
func (s *SSHD) Forward(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	keep := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			keep(c)
			wg.Go(func() {
				defer c.Close()
				in, err := s.ns.Dial(s.Addr)
				if err != nil {
					return
				}
				keep(in)
				defer in.Close()
				join(c, in)
			})
		}
	})
	return l.Addr().String()
}

// join copies both ways between a and b until both directions end: each
// side's end of input is passed on as a half close.
func join(a, b net.Conn) {
	var wg sync.WaitGroup
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			tc.CloseWrite()
		} else {
			dst.Close()
		}
	}
	wg.Go(func() { pipe(a, b) })
	wg.Go(func() { pipe(b, a) })
	wg.Wait()
}
