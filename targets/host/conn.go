package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Conn is a login to one server, through which the target runs commands.
// A Conn is used by one goroutine at a time.
type Conn interface {
	// Run runs argv on the server with stdin as its standard input and
	// returns what it printed and its exit status. An error means the
	// status is unknown: the server could not be reached, the connection
	// was lost, or ctx ended first (the command may then still finish on
	// the server).
	Run(ctx context.Context, argv []string, stdin []byte) (Result, error)
	// Close logs out.
	Close() error
}

// Result is what one command did.
type Result struct {
	Stdout, Stderr []byte
	// Status is the exit status.
	Status int
}

// maxOutput bounds what one command's stdout or stderr may hold: a
// server's --check --json report has some hundred settings and is far
// smaller; a runaway program must not take the memory of a plan across
// thousands of servers.
const maxOutput = 16 << 20

// capped is a buffer that keeps the first maxOutput bytes and says
// whether more came.
type capped struct {
	bytes.Buffer
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.Len(); len(p) > room {
		c.over = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

func (c *capped) check(what string) error {
	if c.over {
		return fmt.Errorf("its %s exceeded %d bytes", what, maxOutput)
	}
	return nil
}

// SSH returns a Conn over a logged-in SSH client; closing it closes the
// client. Each command runs in a session of its own, as the command line
// of the server's login shell, its arguments single-quoted (a POSIX
// shell, or one that quotes alike: bash, dash, zsh).
func SSH(c *gossh.Client) Conn { return &sshConn{c: c} }

type sshConn struct{ c *gossh.Client }

func (s *sshConn) Run(ctx context.Context, argv []string, stdin []byte) (Result, error) {
	if len(argv) == 0 {
		return Result{}, errors.New("no command")
	}
	sess, err := s.c.NewSession()
	if err != nil {
		return Result{}, fmt.Errorf("opening an SSH session: %w", err)
	}
	defer sess.Close()
	var out, errb capped
	sess.Stdin = bytes.NewReader(stdin)
	sess.Stdout, sess.Stderr = &out, &errb
	done := make(chan error, 1)
	go func() { done <- sess.Run(ShellQuote(argv)) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Closing the session's channel is all SSH offers to stop a
		// command without a terminal; it may still run to its end.
		sess.Close()
		return Result{}, fmt.Errorf("%s: %w (it may still finish on the server)", argv[0], ctx.Err())
	}
	r := Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if err := errors.Join(out.check("output"), errb.check("error output")); err != nil {
		return r, fmt.Errorf("%s: %w", argv[0], err)
	}
	var ee *gossh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Status = ee.ExitStatus()
		if ee.Signal() != "" {
			return r, fmt.Errorf("%s: killed by signal %s", argv[0], ee.Signal())
		}
	default:
		// ExitMissingError, or the connection broke.
		return r, fmt.Errorf("%s: the SSH session ended without an exit status: %w", argv[0], err)
	}
	return r, nil
}

func (s *sshConn) Close() error { return s.c.Close() }

// Local returns a Conn that runs commands on this machine, with os/exec:
// for a server whose inventory address is localhost.
func Local() Conn { return localConn{} }

type localConn struct{}

// localWaitDelay is how long a command cut short by its context may
// take to close its output after it was killed.
const localWaitDelay = 5 * time.Second

func (localConn) Run(ctx context.Context, argv []string, stdin []byte) (Result, error) {
	if len(argv) == 0 {
		return Result{}, errors.New("no command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errb capped
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = localWaitDelay
	err := cmd.Run()
	r := Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s: %w", argv[0], ctx.Err())
	}
	if err := errors.Join(out.check("output"), errb.check("error output")); err != nil {
		return r, fmt.Errorf("%s: %w", argv[0], err)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.Status = ee.ExitCode()
	default:
		return r, fmt.Errorf("%s: %w", argv[0], err)
	}
	return r, nil
}

func (localConn) Close() error { return nil }

// ShellQuote joins argv into one POSIX shell command line: each argument
// in single quotes, a quote inside written as a closing quote, a
// backslash-escaped quote and an opening quote (POSIX.1-2024 XCU 2.2.2:
// nothing inside single quotes is special), so that the server's shell
// runs exactly argv.
func ShellQuote(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, `'`, `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
