// Package sshtest serves devices that behave like switches' CLIs over real
// SSH on loopback (gliderlabs/ssh), so that the SSH target is tested
// against prompts, echo, paging, configuration transactions, commit
// timers and the errors a platform prints, and against faults: a
// connection dropped in the middle of a push, a rejected line, a slow
// device.
//
// What a device must do for scrapligo: echo every
// keystroke, answer an empty line with a prompt, print prompts that match
// the platform's patterns, and tolerate a second `enable`. Where an
// emulator is more lenient or stricter than the real platform, its doc
// says so.
package sshtest

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Credentials are what a server lets in: a user with a password, or with
// one of the authorized keys.
type Credentials struct {
	User       string
	Password   string
	Authorized []gossh.PublicKey
}

// Shell is a device's CLI: it runs one interactive session on t until the
// user leaves or t fails.
type Shell interface {
	Shell(t *Term)
}

// Execer is a device that runs commands given with the connection (`ssh
// host cmd`), without a terminal: a Linux shell. Exec returns the
// command's exit status, or hangup to drop the connection instead.
type Execer interface {
	Exec(cmd string, stdin io.Reader, stdout, stderr io.Writer) (status int, hangup bool)
}

// Server is one device's SSH server on 127.0.0.1.
type Server struct {
	// Addr is host:port.
	Addr string
	// HostKey is the server's public host key.
	HostKey gossh.PublicKey

	srv *ssh.Server
	ln  net.Listener

	mu     sync.Mutex
	logins int
}

// NewHostKey makes an ed25519 host key.
func NewHostKey() (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return gossh.NewSignerFromKey(priv)
}

// Serve starts a server for sh with host key hk, accepting creds. Close
// stops it.
func Serve(sh Shell, hk gossh.Signer, creds Credentials) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: ln.Addr().String(), HostKey: hk.PublicKey(), ln: ln}
	s.srv = &ssh.Server{
		Handler: func(sess ssh.Session) {
			if ex, ok := sh.(Execer); ok && sess.RawCommand() != "" {
				code, hangup := ex.Exec(sess.RawCommand(), sess, sess, sess.Stderr())
				if hangup {
					sess.Close()
					return
				}
				sess.Exit(code)
				return
			}
			if _, _, ok := sess.Pty(); !ok {
				fmt.Fprintln(sess, "% a CLI session needs a terminal")
				sess.Exit(1)
				return
			}
			sh.Shell(newTerm(sess))
			sess.Exit(0)
		},
		PasswordHandler: func(ctx ssh.Context, password string) bool {
			ok := creds.Password != "" && ctx.User() == creds.User && password == creds.Password
			s.login(ok)
			return ok
		},
		PublicKeyHandler: func(ctx ssh.Context, key ssh.PublicKey) bool {
			if ctx.User() != creds.User {
				return false
			}
			for _, k := range creds.Authorized {
				if ssh.KeysEqual(k, key) {
					s.login(true)
					return true
				}
			}
			return false
		},
	}
	s.srv.AddHostKey(hk)
	go s.srv.Serve(ln)
	return s, nil
}

func (s *Server) login(ok bool) {
	if ok {
		s.mu.Lock()
		s.logins++
		s.mu.Unlock()
	}
}

// Logins returns how many logins succeeded.
func (s *Server) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// KnownHostsLine is the server's line for a known_hosts file.
func (s *Server) KnownHostsLine() string {
	return knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, s.HostKey)
}

// Close stops the server and drops its connections.
func (s *Server) Close() error {
	return s.srv.Close()
}

// Term is the terminal side of a CLI session: it echoes what it reads, as
// a pty does, and turns "\n" into "\r\n" on output.
type Term struct {
	rw     io.ReadWriter
	r      *bufio.Reader
	closer func() error
	lastCR bool
	// gone is set by Hangup: what the client sent before it, still
	// buffered, is never read.
	gone bool
	// Delay is slept before every prompt: a slow device.
	Delay time.Duration
}

func newTerm(sess ssh.Session) *Term {
	return &Term{rw: sess, r: bufio.NewReader(sess), closer: sess.Close}
}

// ErrHangup is returned by ReadLine once the session has been hung up.
var ErrHangup = errors.New("hung up")

// ReadLine reads one line, echoing it. "\r", "\n" and "\r\n" end a line.
func (t *Term) ReadLine() (string, error) {
	if t.gone {
		return "", ErrHangup
	}
	var line []byte
	for {
		b, err := t.r.ReadByte()
		if err != nil {
			return "", err
		}
		switch b {
		case '\r':
			t.lastCR = true
			t.write([]byte("\r\n"))
			return string(line), nil
		case '\n':
			if t.lastCR {
				t.lastCR = false
				continue
			}
			t.write([]byte("\r\n"))
			return string(line), nil
		}
		t.lastCR = false
		line = append(line, b)
		t.write([]byte{b})
	}
}

// Print writes s with "\r\n" line ends.
func (t *Term) Print(s string) {
	t.write([]byte(strings.ReplaceAll(s, "\n", "\r\n")))
}

// Prompt prints a prompt after the device's delay.
func (t *Term) Prompt(p string) {
	if t.gone {
		return
	}
	if t.Delay > 0 {
		time.Sleep(t.Delay)
	}
	t.Print(p)
}

func (t *Term) write(b []byte) {
	// A write to a session that is gone fails; the next read says so.
	_, _ = t.rw.Write(b)
}

// refused answers a configuration line that a device refuses with out or
// by hanging up (a hang-up ends the session: the next ReadLine returns
// ErrHangup); it reports whether the line was refused.
func (t *Term) refused(out string, hangup bool) bool {
	if hangup {
		t.Hangup()
		return true
	}
	if out != "" {
		t.Print(out)
		return true
	}
	return false
}

// Hangup drops the connection, as a device that reboots or a link that
// fails does.
func (t *Term) Hangup() {
	t.gone = true
	_ = t.closer()
}
