package ssh

import (
	"errors"
	"io"

	"github.com/scrapli/scrapligo/transport"
	gossh "golang.org/x/crypto/ssh"
)

// shell is the scrapligo transport (options.WithCustomTransport) of one
// interactive session on a client rocefab dialled and authenticated
// itself: scrapligo's own transports have no ssh-agent, ignore key
// passphrases and take no context, so the SSH connection is made here and
// scrapligo only drives the CLI over it.
type shell struct {
	client  *gossh.Client
	session *gossh.Session
	stdin   io.WriteCloser
	stdout  io.Reader
}

var _ transport.Implementation = (*shell)(nil)

// ttySpeed is the terminal speed a pty is asked for, as scrapligo's
// standard transport asks it.
const ttySpeed = 115200

// Open starts the shell on a pty: the devices' CLIs print prompts and echo
// only to a terminal, and scrapligo waits for the echo of every line.
func (s *shell) Open(a *transport.Args) error {
	sess, err := s.client.NewSession()
	if err != nil {
		return err
	}
	modes := gossh.TerminalModes{gossh.ECHO: 1, gossh.TTY_OP_ISPEED: ttySpeed, gossh.TTY_OP_OSPEED: ttySpeed}
	if err := sess.RequestPty("xterm", a.TermHeight, a.TermWidth, modes); err != nil {
		sess.Close()
		return err
	}
	if s.stdin, err = sess.StdinPipe(); err != nil {
		sess.Close()
		return err
	}
	if s.stdout, err = sess.StdoutPipe(); err != nil {
		sess.Close()
		return err
	}
	if err := sess.Shell(); err != nil {
		sess.Close()
		return err
	}
	s.session = sess
	return nil
}

// Close ends the session; the client is the target's to close.
func (s *shell) Close() error {
	if s.session == nil {
		return nil
	}
	err := s.session.Close()
	s.session = nil
	if errors.Is(err, io.EOF) {
		// The device hung up first (it does on `exit`).
		return nil
	}
	return err
}

// IsAlive says whether the session is open.
func (s *shell) IsAlive() bool { return s.session != nil }

// Read reads what the device printed.
func (s *shell) Read(n int) ([]byte, error) {
	b := make([]byte, n)
	n, err := s.stdout.Read(b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// Write sends keystrokes.
func (s *shell) Write(b []byte) error {
	_, err := s.stdin.Write(b)
	return err
}
