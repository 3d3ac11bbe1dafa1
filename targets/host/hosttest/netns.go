// Package hosttest is the kit of the host tests: network namespaces with
// veth netdevs, real OpenSSH sshd servers inside them, a server's own
// mount namespace where the host runtime runs with its default paths, and
// the stand-ins for what a veth cannot have (the NIC tools' answers,
// the drivers' sysfs and configfs knobs). It is for tests only: the
// layer test refuses it anywhere else.
//
// What it starts needs root, iproute2 and OpenSSH; every constructor skips
// the test, with the package to install, where they are missing.
package hosttest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Need skips t unless each tool is on PATH; install names the Debian
// packages that bring them.
func Need(t testing.TB, install string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (apt-get install %s)", tool, install)
		}
	}
}

// Netns is a network namespace the test made, removed when it ends.
type Netns struct {
	// Name is the namespace's name under /run/netns.
	Name string
	t    testing.TB
}

// NewNetns makes a network namespace with lo up and, for each name in
// netdevs, one end of a veth pair (its peer named NAME-peer), both up. It
// skips t when not root or when ip is missing.
func NewNetns(t testing.TB, netdevs ...string) *Netns {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a network namespace (run as root, as CI does)")
	}
	Need(t, "iproute2", "ip")
	var r [4]byte
	rand.Read(r[:])
	name := "rocefab-ht-" + hex.EncodeToString(r[:])
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace here: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", name, err, out)
		}
	})
	ns := &Netns{Name: name, t: t}
	cmds := [][]string{{"ip", "link", "set", "lo", "up"}}
	for _, dev := range netdevs {
		cmds = append(cmds,
			[]string{"ip", "link", "add", dev, "type", "veth", "peer", "name", dev + "-peer"},
			[]string{"ip", "link", "set", dev + "-peer", "up"},
			[]string{"ip", "link", "set", dev, "up"})
	}
	for _, cmd := range cmds {
		if out, err := ns.In(cmd...); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(cmd, " "), err, out)
		}
	}
	return ns
}

// In runs a command inside the namespace (ip netns exec) and returns its
// combined output.
func (n *Netns) In(args ...string) (string, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", n.Name}, args...)...).CombinedOutput()
	return string(out), err
}

// Dial connects to addr from inside the namespace: on an OS thread that
// joins it (setns(2)) and is never given back to other goroutines (the
// goroutine ends locked, and the runtime then ends the thread). The
// socket stays in the namespace it was made in, whichever thread serves
// it later.
func (n *Netns) Dial(addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open(filepath.Join("/run/netns", n.Name))
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, fmt.Errorf("setns %s: %w", n.Name, err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}
