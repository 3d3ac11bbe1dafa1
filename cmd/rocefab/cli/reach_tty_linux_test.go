package cli

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestTTYPassphrase: an encrypted key's passphrase is asked on a terminal
// whose echo is off while it is typed (and on again after), and not asked
// at all without a terminal.
func TestTTYPassphrase(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	echo := func() bool {
		st, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		return st.Lflag&unix.ECHO != 0
	}
	var prompt bytes.Buffer
	ask := ttyPassphrase(tty, &prompt)
	if ask == nil {
		t.Fatal("a terminal was not taken for one")
	}
	typed := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for echo() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if echo() {
			// End the line all the same, so that the reader returns and
			// the test fails rather than hangs.
			_, _ = ptmx.Write([]byte("\n"))
			typed <- errors.New("echo stayed on while the passphrase was asked")
			return
		}
		_, err := ptmx.Write([]byte("pass phrase 7\n"))
		typed <- err
	}()
	got, err := ask("/keys/id_ed25519")
	if terr := <-typed; terr != nil {
		t.Fatal(terr)
	}
	if err != nil || string(got) != "pass phrase 7" {
		t.Fatalf("passphrase %q, %v", got, err)
	}
	if !echo() {
		t.Error("echo was not turned back on")
	}
	if !strings.HasPrefix(prompt.String(), "Enter passphrase for key /keys/id_ed25519: ") {
		t.Errorf("prompt %q", prompt.String())
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ttyPassphrase(f, &prompt) != nil {
		t.Error("a passphrase would be asked on something that is no terminal")
	}
}
